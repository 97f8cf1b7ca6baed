/*
 * The Thing page's gallery and its interactive 3D preview (three.js from the npm registry, served by
 * Django's static files: see the import map in templates/uploads/_gallery.html).
 *
 * Each mesh file's processing wrote a three.js BufferGeometry JSON (apps/uploads/processing/threejs.py:
 * non-indexed positions and face normals, millimetres, Z up). Selecting a model in the gallery loads that
 * geometry from the object store and draws it with orbit (drag), zoom (wheel, pinch) and pan (right drag,
 * two fingers). Without WebGL, or when the geometry cannot be loaded, the stage shows the model's render
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
class ModelView {
  constructor(container, geometryJson, THREE) {
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
    this.canvas.setAttribute("role", "img");
    this.canvas.setAttribute("tabindex", "0");
    container.appendChild(this.canvas);

    this.controls = new OrbitControls(this.camera, this.canvas);
    this.controls.target.set(0, height / 2, 0);
    this.controls.enableDamping = true;
    this.controls.minDistance = radius * 0.3;
    this.controls.maxDistance = radius * 12;
    this.controls.listenToKeyEvents(this.canvas); // arrow keys pan while the canvas has the focus
    this.controls.addEventListener("change", () => this.requestRender());
    this.controls.update();

    this.resize = this.resize.bind(this);
    this.observer = new ResizeObserver(this.resize);
    this.observer.observe(container);
    this.resize();
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
      this.view.canvas.setAttribute("aria-label", `3D preview of ${name}: drag to turn, scroll or pinch to zoom`);
      setStatus(stage, "");
      const hint = document.createElement("p");
      hint.className = "viewer-hint";
      hint.textContent = "Drag to turn · scroll to zoom";
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
