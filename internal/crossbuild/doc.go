// Package crossbuild holds a test that the module builds on the systems its build-tagged files
// are split for: Windows (LockFileEx locks, no Unix descriptors), a Unix with flock(2) other
// than Linux, a Unix without file locks, Solaris (whose dup2 is golang.org/x/sys/unix's), and a
// system that is neither Unix nor Windows (js/wasm). It holds no code.
package crossbuild
