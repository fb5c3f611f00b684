package install

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
)

//go:generate go run ./genlogo

//go:embed kernel.json logo-32x32.png logo-64x64.png
var files embed.FS

// binaryPlaceholder stands for the gosbi executable in kernel.json.
const binaryPlaceholder = "GOSBI_BINARY"

// KernelName is the name under which the kernelspec is installed.
const KernelName = "gosbi"

// KernelJSON returns the kernel.json of the kernelspec, with binary (an absolute path) as the
// program Jupyter starts.
func KernelJSON(binary string) ([]byte, error) {
	tmpl, err := files.ReadFile("kernel.json")
	if err != nil {
		return nil, fmt.Errorf("install: kernel.json template: %w", err)
	}
	var spec map[string]any
	if err := json.Unmarshal(tmpl, &spec); err != nil {
		return nil, fmt.Errorf("install: kernel.json template: %w", err)
	}
	argv, _ := spec["argv"].([]any)
	for i, a := range argv {
		if a == binaryPlaceholder {
			argv[i] = binary
		}
	}
	out, err := json.MarshalIndent(spec, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("install: encode kernel.json: %w", err)
	}
	return append(out, '\n'), nil
}

// LogoSizes are the sizes of the logo files Jupyter looks for (logo-WxH.png).
var LogoSizes = []int{32, 64}

// LogoFile returns the committed PNG logo of the given size (32 or 64).
func LogoFile(size int) ([]byte, error) {
	b, err := files.ReadFile(LogoName(size))
	if err != nil {
		return nil, fmt.Errorf("install: no logo of size %d (have %v): %w", size, LogoSizes, err)
	}
	return b, nil
}

// LogoName is the file name Jupyter expects for a logo of the given size.
func LogoName(size int) string { return fmt.Sprintf("logo-%dx%d.png", size, size) }

// Logo draws the gosbi logo: a posterior density, white on Go's cyan, in a rounded square.
// Each pixel averages 4×4 sub-samples for smooth edges.
func Logo(size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	bg := color.NRGBA{0x00, 0xAD, 0xD8, 0xff}   // Go cyan
	dark := color.NRGBA{0x0b, 0x3d, 0x5c, 0xff} // the prior, behind the posterior
	const ss = 4
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) / float64(size)
					y := (float64(py) + (float64(sy)+0.5)/ss) / float64(size)
					c, ok := logoColor(x, y, bg, dark)
					if !ok {
						continue
					}
					r += float64(c.R)
					g += float64(c.G)
					b += float64(c.B)
					a += 255
				}
			}
			if a == 0 {
				continue
			}
			n := a / 255
			img.SetNRGBA(px, py, color.NRGBA{uint8(r/n + 0.5), uint8(g/n + 0.5), uint8(b/n + 0.5), uint8(a/(ss*ss) + 0.5)})
		}
	}
	return img
}

// logoColor is the colour at (x, y) in the unit square, or false outside the rounded square.
func logoColor(x, y float64, bg, dark color.NRGBA) (color.NRGBA, bool) {
	const radius = 0.2
	cx := math.Max(radius-x, math.Max(0, x-(1-radius)))
	cy := math.Max(radius-y, math.Max(0, y-(1-radius)))
	if cx*cx+cy*cy > radius*radius {
		return color.NRGBA{}, false
	}
	const base = 0.82
	if x < 0.1 || x > 0.9 || y > base {
		return bg, true
	}
	// A wide prior and a narrow posterior, both Gaussian bumps on the base line.
	prior := 0.22 * math.Exp(-0.5*sq((x-0.5)/0.2))
	post := 0.62 * math.Exp(-0.5*sq((x-0.56)/0.085))
	h := base - y
	switch {
	case h <= post:
		return color.NRGBA{0xff, 0xff, 0xff, 0xff}, true
	case h <= prior:
		return dark, true
	}
	return bg, true
}

func sq(x float64) float64 { return x * x }

// EncodeLogo returns the PNG encoding of Logo(size).
func EncodeLogo(size int) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, Logo(size)); err != nil {
		return nil, fmt.Errorf("install: encode logo: %w", err)
	}
	return buf.Bytes(), nil
}
