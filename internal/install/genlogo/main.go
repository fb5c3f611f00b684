// Command genlogo writes the kernelspec logos (logo-32x32.png, logo-64x64.png) drawn by
// install.Logo into the current directory. It is run by `go generate ./install`.
package main

import (
	"log"
	"os"

	"github.com/gosbi/gosbi/internal/install"
)

func main() {
	for _, size := range install.LogoSizes {
		b, err := install.EncodeLogo(size)
		if err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(install.LogoName(size), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
