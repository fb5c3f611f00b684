// Package openblas links OpenBLAS (through cgo and gonum.org/v1/netlib) into builds with the
// openblas tag: importing it registers OpenBLAS as the blas64 implementation. Without the tag
// the package is empty. It is separate from package nn because a package that uses cgo
// cannot also hold Go assembly.
package openblas
