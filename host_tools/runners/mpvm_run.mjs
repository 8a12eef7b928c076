// Run a MicroPython script in the official MicroPython WebAssembly VM (npm
// @micropython/micropython-webassembly-pyscript), with host folders copied into
// its in-memory filesystem (the port has MEMFS only).
//
//   node mpvm_run.mjs [--heap BYTES] [--mount HOSTDIR:VMDIR]... [--cwd VMDIR] SCRIPT|-
//
// Exit status: 0 on success, 1 if the script raised (the traceback goes to stderr),
// 2 on a usage error.  sys.path gets "/lib" in front, like a board.
import fs from "fs";
import path from "path";
import { createRequire } from "module";

const require = createRequire(import.meta.url);
let heap = 16 * 1024 * 1024;
const mounts = [];
let cwd = "/";
let script = null;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--heap") heap = parseInt(argv[++i], 10);
  else if (a === "--mount") mounts.push(argv[++i]);
  else if (a === "--cwd") cwd = argv[++i];
  else script = a;
}
if (script === null) {
  console.error("usage: mpvm_run.mjs [--heap BYTES] [--mount HOST:VM]... SCRIPT|-");
  process.exit(2);
}

// Resolve the VM from the project's node_modules (the Makefile installs it).
const projectRoot = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");
const vmEntry = path.join(projectRoot, "node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs");
const { loadMicroPython } = await import(vmEntry);

const out = (s) => process.stdout.write(s);
const err = (s) => process.stderr.write(s);
const mp = await loadMicroPython({
  heapsize: heap,
  linebuffer: false,
  stdout: (bytes) => out(Buffer.from(bytes)),
  stderr: (bytes) => err(Buffer.from(bytes)),
});

function mkdirs(vmPath) {
  let cur = "";
  for (const part of vmPath.split("/").filter(Boolean)) {
    cur += "/" + part;
    try { mp.FS.mkdir(cur); } catch (e) { /* exists */ }
  }
}

function copyIn(hostDir, vmDir) {
  mkdirs(vmDir);
  for (const name of fs.readdirSync(hostDir)) {
    if (name === "__pycache__" || name.startsWith(".")) continue;
    const h = path.join(hostDir, name);
    const v = vmDir.replace(/\/$/, "") + "/" + name;
    const st = fs.statSync(h);
    if (st.isDirectory()) copyIn(h, v);
    else mp.FS.writeFile(v, fs.readFileSync(h));
  }
}

for (const m of mounts) {
  const idx = m.lastIndexOf(":");
  const host = m.slice(0, idx), vm = m.slice(idx + 1);
  if (fs.statSync(host).isDirectory()) copyIn(host, vm);
  else { mkdirs(path.posix.dirname(vm)); mp.FS.writeFile(vm, fs.readFileSync(host)); }
}
mkdirs(cwd);
mp.FS.chdir(cwd);

const code = script === "-" ? fs.readFileSync(0, "utf8") : fs.readFileSync(script, "utf8");
try {
  mp.runPython("import sys\nsys.path.insert(0, '/lib')\n");
  mp.runPython(code);
} catch (e) {
  if (e && e.name === "PythonError") {
    if (e.type === "SystemExit") process.exit(0);
    err(e.message + "\n");
    process.exit(1);
  }
  throw e;
}
