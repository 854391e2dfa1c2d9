'use strict'
// The nine native targets of `napi.targets`, written out rather than taken from napi-rs's parser, so that
// the tests check what napi-rs makes of them: the npm/ folder and loader suffix, and what npm
// matches against `os`, `cpu` and `libc`.
module.exports = [
  { triple: 'x86_64-unknown-linux-gnu', abi: 'linux-x64-gnu', platform: 'linux', arch: 'x64', libc: 'glibc' },
  { triple: 'aarch64-unknown-linux-gnu', abi: 'linux-arm64-gnu', platform: 'linux', arch: 'arm64', libc: 'glibc' },
  { triple: 'x86_64-unknown-linux-musl', abi: 'linux-x64-musl', platform: 'linux', arch: 'x64', libc: 'musl' },
  { triple: 'aarch64-unknown-linux-musl', abi: 'linux-arm64-musl', platform: 'linux', arch: 'arm64', libc: 'musl' },
  // napi-rs writes `libc` for the gnu and musl ABIs only: its gnueabihf package has none, as
  // napi-rs's own packages (@node-rs/*-linux-arm-gnueabihf) have none. On a musl armv7 npm installs
  // it too, and binding.js, which looks for linux-arm-musleabihf there, never loads it.
  { triple: 'armv7-unknown-linux-gnueabihf', abi: 'linux-arm-gnueabihf', platform: 'linux', arch: 'arm' },
  { triple: 'x86_64-apple-darwin', abi: 'darwin-x64', platform: 'darwin', arch: 'x64' },
  { triple: 'aarch64-apple-darwin', abi: 'darwin-arm64', platform: 'darwin', arch: 'arm64' },
  { triple: 'x86_64-pc-windows-msvc', abi: 'win32-x64-msvc', platform: 'win32', arch: 'x64' },
  { triple: 'aarch64-pc-windows-msvc', abi: 'win32-arm64-msvc', platform: 'win32', arch: 'arm64' },
]
// ...and its WebAssembly one, last in `napi.targets`: one package for every platform, which
// binding.js falls back to when no native binary loads (npm installs it where asked for the cpu
// `wasm32`, as napi-rs writes it).
module.exports.wasm = { triple: 'wasm32-wasip1-threads', abi: 'wasm32-wasi' }
