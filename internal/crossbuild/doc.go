// Package crossbuild holds a test that the module builds on the systems its build-tagged files
// are split for: Windows (LockFileEx locks, no Unix descriptors), a Unix with flock(2) other
// than Linux, and a Unix without file locks. It holds no code.
package crossbuild
