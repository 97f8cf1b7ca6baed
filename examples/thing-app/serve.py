"""Serve the example Thing app (standard library only).

    python examples/thing-app/serve.py --site http://127.0.0.1:8000 --port 8001

Register an app of type **Thing** with the application URL `http://127.0.0.1:8001/` in the developer
portal (an approved one is listed on every Thing page; see docs/thing-apps.md). `--site` is the Thingyard
the app loads the SDK from.
"""

import argparse
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
PLACEHOLDER = "__THINGYARD_SITE_URL__"


class ExampleAppHandler(SimpleHTTPRequestHandler):
    site_url = "http://127.0.0.1:8000"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(HERE), **kwargs)

    def do_GET(self):
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path in ("/", "/index.html"):
            body = (
                (HERE / "index.html")
                .read_text(encoding="utf-8")
                .replace(PLACEHOLDER, self.site_url.rstrip("/"))
            )
            data = body.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)
            return
        if path not in ("/app.js",):  # serve the app, not this directory's other files
            self.send_error(404)
            return
        super().do_GET()

    def log_message(self, format, *args):  # quiet; the browser's console shows what matters
        pass


def make_server(*, site_url: str, host: str = "127.0.0.1", port: int = 8001) -> ThreadingHTTPServer:
    handler = type("Handler", (ExampleAppHandler,), {"site_url": site_url})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default="http://127.0.0.1:8000", help="the Thingyard site (SDK and API)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    args = parser.parse_args()
    server = make_server(site_url=args.site, host=args.host, port=args.port)
    print(f"Example Thing app on http://{args.host}:{args.port}/ (SDK from {args.site})")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
