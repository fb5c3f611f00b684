// Package install holds the Jupyter kernelspec of gosbi: the kernel.json template and the logos,
// which are drawn by Logo and committed as PNG files (regenerate them with `go generate`).
package install
