//! `cargo xtask web`: the viewer in `target/web` (the C ABI built for wasm32 with SIMD128, the page, three.js from
//! `web/node_modules`, and blobs `sinew-bake` makes from the shared glTF characters and BVH takes, or only the
//! example blob without them), served on 127.0.0.1. `cargo xtask web-test`: the same build, then the browser
//! tests (`web/test/browser.test.mjs`) in Debian's headless Chromium through puppeteer-core.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the viewer is served from.
const ADDRESS: &str = "127.0.0.1:8417";
/// The shared files baked for the page when present: each blob's name, its files (glTF characters, whose meshes
/// the page draws, or BVH takes of one skeleton, drawn as bones), and the baker's extra flags. The Bandai walk
/// and run share a skeleton: baked together with their stride phases and root motion, for the locomotion view;
/// the CMU walk is baked on knots, which the time slider marks.
const SHARED: &[(&str, &[&str], &[&str])] = &[
    ("CesiumMan", &["gltf/CesiumMan.glb"], &[]),
    ("RiggedFigure", &["gltf/RiggedFigure.glb"], &[]),
    ("Fox", &["gltf/Fox.glb"], &[]),
    ("robot", &["gltf/robot.glb"], &[]),
    (
        "bandai-walk-run",
        &["bvh/bandai/dataset-1_walk_normal_001.bvh", "bvh/bandai/dataset-2_run_normal_001.bvh"],
        &["--phase", "--root-motion", "delta"],
    ),
    ("cmu-walk-knots", &["bvh/cmu/01_01.bvh"], &["--knots", "1"]),
];

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    if let Some(dir) = to.parent() {
        fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    fs::copy(from, to).map(|_| ()).map_err(|e| format!("{} → {}: {e}", from.display(), to.display()))
}

/// Debian's Chromium, or how to get it.
pub fn chromium() -> Result<&'static str, String> {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .ok_or_else(|| "`chromium` not found; install with `apt-get install chromium`".to_string())
}

/// `npm ci` in `web/` unless its packages are installed (three.js for the page, puppeteer-core for the tests).
pub fn npm_packages(web: &Path) -> Result<(), String> {
    if web.join("node_modules/three/build/three.module.js").is_file()
        && web.join("node_modules/puppeteer-core").is_dir()
    {
        return Ok(());
    }
    crate::require_tool("npm", "npm")?;
    let mut npm = Command::new("npm");
    npm.current_dir(web).args(["ci", "--no-audit", "--no-fund"]);
    crate::run(npm)
}

/// Builds everything the page needs into `target/web` and returns that directory.
pub fn build() -> Result<PathBuf, String> {
    let root = crate::root();
    let (web, out) = (root.join("web"), root.join("target/web"));
    npm_packages(&web)?;
    // The directory the c_api test builds the same wasm library in (same profile and flags): one build for both.
    let build_dir = "target/ffi-wasm";
    let mut wasm = crate::cargo_with(&[
        "build",
        "--release",
        "-p",
        "sinew-ffi",
        "--target",
        "wasm32-unknown-unknown",
        "--target-dir",
        build_dir,
    ]);
    wasm.env("RUSTFLAGS", "-C target-feature=+simd128");
    crate::run(wasm)?;
    // The dev build of the baker (the one the workspace's tests build): the shared files bake in seconds.
    let mut bake = crate::cargo_with(&["build", "-p", "sinew-tools", "--bin", "sinew-bake"]);
    bake.env_remove("RUSTFLAGS");
    crate::run(bake)?;

    let _ = fs::remove_dir_all(&out);
    copy(&root.join(build_dir).join("wasm32-unknown-unknown/release/sinew_ffi.wasm"), &out.join("sinew_ffi.wasm"))?;
    for file in ["index.html", "viewer.mjs", "sinew.mjs", "skinned.mjs", "world.mjs", "scenery.mjs"] {
        copy(&web.join(file), &out.join(file))?;
    }
    let three = web.join("node_modules/three");
    for file in ["build/three.module.js", "build/three.core.js"] {
        copy(&three.join(file), &out.join("three").join(Path::new(file).file_name().unwrap_or_default()))?;
    }
    for addon in
        ["controls/OrbitControls.js", "loaders/GLTFLoader.js", "utils/BufferGeometryUtils.js", "utils/SkeletonUtils.js"]
    {
        copy(&three.join("examples/jsm").join(addon), &out.join("three/addons").join(addon))?;
    }

    // The example blob always; each shared file present, baked, and a glTF file beside its blob for its meshes.
    let blobs = out.join("blobs");
    copy(&root.join("docs/example.snw"), &blobs.join("example.snw"))?;
    let mut entries = vec![serde_json::json!({ "blob": "example.snw" })];
    let data = std::env::var_os("SINEW_DATA").map_or_else(|| root.join("../shared/data"), PathBuf::from);
    for &(stem, files, flags) in SHARED {
        let sources: Vec<PathBuf> = files.iter().map(|f| data.join(f)).collect();
        if let Some(missing) = sources.iter().find(|s| !s.is_file()) {
            eprintln!("xtask web: {} not found; the page shows what there is", missing.display());
            continue;
        }
        let name = format!("{stem}.snw");
        let gltf = files[0].ends_with(".glb");
        let mut c = Command::new(root.join("target/debug/sinew-bake"));
        c.args(["bake", if gltf { "--gltf" } else { "--bvh" }]).args(&sources).args(flags);
        c.arg("--out").arg(blobs.join(&name));
        crate::stdout_of(c)?;
        if gltf {
            let mesh = format!("models/{stem}.glb");
            copy(&sources[0], &out.join(&mesh))?;
            entries.push(serde_json::json!({ "blob": name, "mesh": mesh }));
        } else {
            entries.push(serde_json::json!({ "blob": name }));
        }
    }
    let list = serde_json::to_string(&entries).map_err(|e| e.to_string())?;
    fs::write(out.join("blobs.json"), list).map_err(|e| e.to_string())?;
    Ok(out)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// Answers one GET with the file it names under `dir` (nothing outside it), or 404.
fn answer(stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    let path = request.split_whitespace().nth(1).unwrap_or("/").split('?').next().unwrap_or("/");
    let relative = if path == "/" { "index.html" } else { path.trim_start_matches('/') };
    let safe = !relative.split('/').any(|part| part == ".." || part.is_empty());
    let file = dir.join(relative);
    let mut stream = reader.into_inner();
    match fs::read(&file) {
        Ok(body) if safe => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                content_type(&file),
                body.len()
            );
            stream.write_all(head.as_bytes())?;
            stream.write_all(&body)
        }
        _ => stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
    }
}

pub fn web() -> Result<(), String> {
    let dir = build()?;
    let listener = TcpListener::bind(ADDRESS).map_err(|e| format!("{ADDRESS}: {e}"))?;
    println!("sinew viewer: http://{ADDRESS}/ (Ctrl-C stops it)");
    for stream in listener.incoming().flatten() {
        if let Err(e) = answer(stream, &dir) {
            eprintln!("xtask web: {e}");
        }
    }
    Ok(())
}

pub fn web_test() -> Result<(), String> {
    let dir = build()?;
    let root = crate::root();
    let chromium = chromium()?;
    // Fixtures for the broken-blob tests: the example cut in half, and the example with its magic overwritten.
    let example = fs::read(root.join("docs/example.snw")).map_err(|e| e.to_string())?;
    fs::write(dir.join("blobs/broken.snw"), &example[..example.len() / 2]).map_err(|e| e.to_string())?;
    let mut foreign = example.clone();
    foreign[..4].copy_from_slice(b"GLB!");
    fs::write(dir.join("blobs/foreign.snw"), &foreign).map_err(|e| e.to_string())?;
    // Only this run's screenshots: a view renamed or gone leaves no stale picture behind.
    let shots = root.join("target/web-shots");
    let _ = fs::remove_dir_all(&shots);
    let mut node = Command::new("node");
    node.current_dir(&root)
        .args(["--test", "web/test/browser.test.mjs"])
        .env("SINEW_WEB_DIR", &dir)
        .env("SINEW_WEB_SHOTS", &shots)
        .env("SINEW_CHROMIUM", chromium);
    crate::run(node)
}
