/*
 * The Thing page's gallery and its interactive 3D preview (three.js from the npm registry, served by
 * Django's static files: see the import map in templates/uploads/_gallery.html).
 *
 * Each mesh file's processing wrote a three.js BufferGeometry JSON (apps/uploads/processing/threejs.py:
 * non-indexed positions and face normals, millimetres, Z up). Selecting a model in the gallery loads that
 * geometry from the object store and draws it with orbit (drag), zoom and pan (right drag, two fingers).
 * Accessibility (issue 26): the canvas is an "application" named after the model, in the tab order with a
 * visible focus ring; arrow keys turn the model, + and - zoom, Home puts the view back. The scroll wheel
 * over the viewer scrolls the page like anywhere else; zooming takes Ctrl or ⌘ with the wheel (what a
 * trackpad's pinch sends), a pinch on a touch screen, or the keys (docs/decisions.md). Without WebGL, or when the geometry cannot be loaded, the stage shows the model's render
 * (the PNG the processing also wrote) and says why.
 */
// three.js (its minified build: about 750 KB, 190 KB compressed) is loaded when a model is first shown, not with every Thing page.
let three = null;

function loadThree() {
  if (!three) {
    three = Promise.all([import("three"), import("three/addons/controls/OrbitControls.js")]).then(
      ([core, controls]) => ({ ...core, OrbitControls: controls.OrbitControls }),
    );
  }
  return three;
}

const MODEL_COLOR = 0x2a7fd6;

export function webglAvailable() {
  try {
    const canvas = document.createElement("canvas");
    return Boolean(window.WebGLRenderingContext && (canvas.getContext("webgl2") || canvas.getContext("webgl")));
  } catch (error) {
    return false;
  }
}

/** A three.js view of one geometry in `container`; `dispose()` frees the GPU context. */
const KEY_TURN = Math.PI / 12; // 15° per arrow key press
const KEY_ZOOM = 1.25;

class ModelView {
  constructor(container, geometryJson, THREE) {
    this.THREE = THREE;
    const {
      BufferGeometryLoader, Color, DirectionalLight, GridHelper, HemisphereLight, Mesh, MeshStandardMaterial,
      OrbitControls, PerspectiveCamera, Scene, Vector3, WebGLRenderer,
    } = THREE;
    this.container = container;
    const loader = new BufferGeometryLoader();
    const geometry = loader.parse(geometryJson);
    geometry.rotateX(-Math.PI / 2); // the mesh is Z up (3D printing); three.js is Y up
    geometry.computeBoundingBox();
    const box = geometry.boundingBox;
    const center = new Vector3();
    box.getCenter(center);
    geometry.translate(-center.x, -box.min.y, -center.z); // on the floor, centred
    geometry.computeBoundingSphere();
    const radius = Math.max(geometry.boundingSphere.radius, 0.001);

    this.scene = new Scene();
    this.scene.background = new Color(0xf1f4f8);
    this.scene.add(new HemisphereLight(0xffffff, 0x8a94a6, 2.2));
    const sun = new DirectionalLight(0xffffff, 2.4);
    sun.position.set(radius * 2, radius * 4, radius * 3);
    this.scene.add(sun);
    const grid = new GridHelper(radius * 4, 20, 0xb8c1ce, 0xd6dce5);
    this.scene.add(grid);
    this.mesh = new Mesh(
      geometry,
      new MeshStandardMaterial({ color: MODEL_COLOR, metalness: 0.05, roughness: 0.55, flatShading: true }),
    );
    this.scene.add(this.mesh);

    this.camera = new PerspectiveCamera(40, 4 / 3, radius / 100, radius * 100);
    const height = box.max.y - box.min.y;
    this.camera.position.set(radius * 1.9, height / 2 + radius * 1.4, radius * 2.6);

    this.renderer = new WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.canvas = this.renderer.domElement;
    this.canvas.setAttribute("role", "application");
    this.canvas.setAttribute("aria-roledescription", "3D viewer");
    this.canvas.setAttribute("tabindex", "0");
    container.appendChild(this.canvas);

    this.controls = new OrbitControls(this.camera, this.canvas);
    this.controls.target.set(0, height / 2, 0);
    this.controls.enableDamping = true;
    this.controls.minDistance = radius * 0.3;
    this.controls.maxDistance = radius * 12;
    this.controls.addEventListener("change", () => {
      this.canvas.dataset.distance = this.camera.position.distanceTo(this.controls.target).toFixed(3);
      this.requestRender();
    });
    this.controls.update();
    this.home = { position: this.camera.position.clone(), target: this.controls.target.clone() };

    // The wheel scrolls the page unless Ctrl or ⌘ is held: OrbitControls (listening on the canvas) never
    // sees a plain wheel event, so nothing cancels its default action.
    this.onWheel = (event) => {
      if (!event.ctrlKey && !event.metaKey) event.stopPropagation();
    };
    container.addEventListener("wheel", this.onWheel, { capture: true });
    this.onKey = this.onKey.bind(this);
    this.canvas.addEventListener("keydown", this.onKey);

    this.resize = this.resize.bind(this);
    this.observer = new ResizeObserver(this.resize);
    this.observer.observe(container);
    this.resize();
  }

  onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const actions = {
      ArrowLeft: () => this.turn(-KEY_TURN, 0),
      ArrowRight: () => this.turn(KEY_TURN, 0),
      ArrowUp: () => this.turn(0, -KEY_TURN),
      ArrowDown: () => this.turn(0, KEY_TURN),
      "+": () => this.zoom(1 / KEY_ZOOM),
      "=": () => this.zoom(1 / KEY_ZOOM),
      "-": () => this.zoom(KEY_ZOOM),
      _: () => this.zoom(KEY_ZOOM),
      Home: () => this.reset(),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault(); // the arrows and Home would scroll the page
    action();
  }

  /** Turn the camera around the target: `azimuth` left/right, `polar` over the top (radians). */
  turn(azimuth, polar) {
    const offset = this.camera.position.clone().sub(this.controls.target);
    const spherical = new this.THREE.Spherical().setFromVector3(offset);
    spherical.theta -= azimuth;
    spherical.phi = Math.min(Math.max(spherical.phi + polar, 0.05), Math.PI - 0.05);
    offset.setFromSpherical(spherical);
    this.camera.position.copy(this.controls.target).add(offset);
    this.moved();
  }

  /** Move the camera `factor` times its distance from the target (< 1 is closer), within the limits. */
  zoom(factor) {
    const offset = this.camera.position.clone().sub(this.controls.target);
    const distance = Math.min(
      Math.max(offset.length() * factor, this.controls.minDistance),
      this.controls.maxDistance,
    );
    offset.setLength(distance);
    this.camera.position.copy(this.controls.target).add(offset);
    this.moved();
  }

  reset() {
    this.camera.position.copy(this.home.position);
    this.controls.target.copy(this.home.target);
    this.moved();
  }

  moved() {
    this.controls.update();
    this.canvas.dataset.distance = this.camera.position.distanceTo(this.controls.target).toFixed(3);
    this.requestRender();
  }

  resize() {
    const width = this.container.clientWidth || 640;
    const height = this.container.clientHeight || 480;
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    this.renderer.setSize(width, height, false);
    this.requestRender();
  }

  requestRender() {
    if (this.frame) return;
    this.frame = window.requestAnimationFrame(() => {
      this.frame = 0;
      // Damping keeps the camera moving for a few frames after the pointer stops.
      const moving = this.controls.update();
      this.renderer.render(this.scene, this.camera);
      this.rendered = true;
      if (moving) this.requestRender();
    });
  }

  dispose() {
    if (this.frame) window.cancelAnimationFrame(this.frame);
    this.observer.disconnect();
    this.container.removeEventListener("wheel", this.onWheel, { capture: true });
    this.canvas.removeEventListener("keydown", this.onKey);
    this.controls.dispose();
    this.mesh.geometry.dispose();
    this.mesh.material.dispose();
    this.renderer.dispose();
    this.renderer.forceContextLoss();
    this.canvas.remove();
  }
}

function setStatus(stage, text) {
  let status = stage.querySelector(".viewer-status");
  if (!text) {
    if (status) status.remove();
    return;
  }
  if (!status) {
    status = document.createElement("p");
    status.className = "viewer-status";
    status.setAttribute("role", "status");
    stage.appendChild(status);
  }
  status.textContent = text;
}

function poster(stage, url, alt) {
  const img = document.createElement("img");
  img.src = url;
  img.alt = alt;
  stage.appendChild(img);
  return img;
}

/** The gallery: thumbnails choose what the stage shows (an image, or a model in 3D). */
class Gallery {
  constructor(root) {
    this.root = root;
    this.stage = root.querySelector("[data-stage]");
    this.buttons = Array.from(root.querySelectorAll("[data-gallery-item]"));
    this.view = null;
    this.token = 0;
    this.buttons.forEach((button) => button.addEventListener("click", () => this.show(button)));
    const first = this.buttons.find((b) => b.getAttribute("aria-current") === "true") || this.buttons[0];
    if (first && first.dataset.kind === "model") this.show(first);
  }

  clear() {
    this.token += 1;
    if (this.view) {
      this.view.dispose();
      this.view = null;
    }
    this.stage.replaceChildren();
  }

  select(button) {
    this.buttons.forEach((b) => b.setAttribute("aria-current", b === button ? "true" : "false"));
  }

  show(button) {
    this.select(button);
    this.clear();
    this.stage.dataset.kind = button.dataset.kind;
    if (button.dataset.kind === "image") {
      this.stage.dataset.state = "ready";
      poster(this.stage, button.dataset.src, button.dataset.alt || "");
      return;
    }
    this.showModel(button);
  }

  async showModel(button) {
    const token = this.token;
    const name = button.dataset.name || "model";
    const stage = this.stage;
    if (!webglAvailable()) {
      stage.dataset.state = "fallback";
      poster(stage, button.dataset.poster, `Render of ${name}`);
      setStatus(stage, "The interactive 3D preview needs WebGL: showing the render instead.");
      return;
    }
    stage.dataset.state = "loading";
    const holder = document.createElement("div");
    holder.className = "viewer";
    stage.appendChild(holder);
    setStatus(stage, `Loading ${name} in 3D…`);
    try {
      const [THREE, json] = await Promise.all([
        loadThree(),
        fetch(button.dataset.geometry, { credentials: "omit" }).then((response) => {
          if (!response.ok) throw new Error(`HTTP ${response.status}`);
          return response.json();
        }),
      ]);
      if (token !== this.token) return; // another item was chosen meanwhile
      this.view = new ModelView(holder, json, THREE);
      const hint = document.createElement("p");
      hint.className = "viewer-hint";
      hint.id = `viewer-hint-${button.dataset.fileId || "model"}`;
      hint.textContent = "Drag or arrow keys to turn · Ctrl + scroll, pinch or +/− to zoom · Home to reset";
      this.view.canvas.setAttribute("aria-label", `3D model viewer: ${name}`);
      this.view.canvas.setAttribute("aria-describedby", hint.id);
      setStatus(stage, "");
      stage.appendChild(hint);
      await new Promise((resolve) => window.requestAnimationFrame(() => window.requestAnimationFrame(resolve)));
      stage.dataset.state = "ready";
    } catch (error) {
      if (token !== this.token) return;
      holder.remove();
      stage.dataset.state = "fallback";
      poster(stage, button.dataset.poster, `Render of ${name}`);
      setStatus(stage, "The 3D preview could not be loaded: showing the render instead.");
    }
  }
}

document.querySelectorAll("[data-gallery]").forEach((root) => {
  const gallery = new Gallery(root);
  root.thingyardGallery = gallery;
});

// "Preview in 3D" buttons of the file list pick the model in the gallery.
document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-preview-file]");
  if (!button) return;
  const root = document.querySelector("[data-gallery]");
  const item = root && root.querySelector(`[data-gallery-item][data-file-id="${button.dataset.previewFile}"]`);
  if (!item) return;
  event.preventDefault();
  root.thingyardGallery.show(item);
  root.scrollIntoView({ behavior: "smooth", block: "start" });
});
