package viz

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"strings"

	"github.com/gosbi/gosbi/display"
	"github.com/gosbi/gosbi/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot is a figure that renders on demand. Width, Height and DPI may be changed before
// rendering; its PNG holds at most MaxPNGPixels.
type Plot struct {
	Title  string    // figure title, drawn above the panels when non-empty, wrapped at spaces to the width
	Width  vg.Length // figure width; vg.Centimeter and vg.Inch are units
	Height vg.Length // figure height
	DPI    int       // resolution of PNG output
	draw   func(c draw.Canvas)
	legend []string
}

// DefaultDPI is the PNG resolution of new plots.
const DefaultDPI = 110

func newFigure(w, h vg.Length, legend []string, fn func(c draw.Canvas)) *Plot {
	return &Plot{Width: w, Height: h, DPI: DefaultDPI, draw: fn, legend: legend}
}

// badInput is the panic of the drawing of a figure made from input it cannot draw; render
// returns its error as it is.
type badInput struct{ error }

// failedFigure is a figure that cannot be drawn: rendering it returns err (Draw panics with it).
func failedFigure(w, h vg.Length, err error) *Plot {
	return newFigure(w, h, nil, func(draw.Canvas) { panic(badInput{err}) })
}

// fromGonum wraps a single gonum plot.
func fromGonum(p *plot.Plot, w, h vg.Length, legend []string) *Plot {
	return newFigure(w, h, legend, p.Draw)
}

// Legend lists the legend entries of the plot, in order.
func (p *Plot) Legend() []string { return append([]string(nil), p.legend...) }

// Draw draws the figure on a canvas: use it to place a Plot inside a larger gonum figure.
func (p *Plot) Draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	if p.Title == "" {
		p.draw(c)
		return
	}
	st := textStyle(12)
	st.XAlign = draw.XCenter
	st.YAlign = draw.YTop
	title := wrapTitle(st, p.Title, c.Max.X-c.Min.X-2*titleMargin)
	line := st.Height("M") // one line: the space above and below a title does not grow with its lines
	h := st.Height(title) + 0.4*line
	c.FillText(st, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - 0.21*line}, title)
	inner := c
	inner.Max.Y -= h
	p.draw(inner)
}

// titleMargin is the least space between a figure's title and its left and right edges.
const titleMargin = 4

// wrapTitle breaks each line of title at spaces into lines no wider than width, so that a
// title wider than its figure is not cut off at both ends; a word wider than width keeps a
// line of its own. A title that fits is returned as it is.
func wrapTitle(st draw.TextStyle, title string, width vg.Length) string {
	if st.Width(title) <= width {
		return title
	}
	var lines []string
	for _, para := range strings.Split(title, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			switch {
			case line == "":
				line = w
			case st.Width(line+" "+w) > width:
				lines = append(lines, line)
				line = w
			default:
				line += " " + w
			}
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}

// MaxPNGPixels is the largest PNG a Plot renders, in pixels (width × height at its DPI):
// 50 million, an RGBA image of 200 MB while it is drawn. PNG refuses a larger figure before
// it allocates the image; lower the DPI or the size, or save it as SVG or PDF.
const MaxPNGPixels = 50_000_000

// pngSize returns the pixel size of the figure's PNG, or an error when the figure has no
// positive finite size or its PNG would hold more than MaxPNGPixels.
func (p *Plot) pngSize() (w, h float64, err error) {
	for _, d := range []struct {
		name string
		v    vg.Length
	}{{"width", p.Width}, {"height", p.Height}} {
		if v := float64(d.v); !(v > 0) || math.IsInf(v, 1) {
			return 0, 0, fmt.Errorf("viz: cannot render the plot as PNG: its %s %v pt is not a positive finite length", d.name, v)
		}
	}
	w = math.Round(float64(p.Width / vg.Inch * vg.Length(p.dpi())))
	h = math.Round(float64(p.Height / vg.Inch * vg.Length(p.dpi())))
	if w*h > MaxPNGPixels {
		return 0, 0, fmt.Errorf("viz: cannot render the plot as PNG: %.0f×%.0f pixels at %d DPI is more than the %d pixels of MaxPNGPixels; lower its DPI or size, or save it as SVG or PDF",
			w, h, p.dpi(), MaxPNGPixels)
	}
	return w, h, nil
}

// PNG renders the figure as PNG bytes at p.DPI. A figure of more than MaxPNGPixels is an error.
func (p *Plot) PNG() ([]byte, error) {
	if _, _, err := p.pngSize(); err != nil {
		return nil, err
	}
	img := vgimg.NewWith(vgimg.UseWH(p.Width, p.Height), vgimg.UseDPI(p.dpi()))
	if err := p.render(draw.New(img)); err != nil {
		return nil, err
	}
	// Fast compression: encoding dominates the rendering time of a plot, and the files stay
	// small (tens of kB) because plots are mostly flat colour.
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img.Image()); err != nil {
		return nil, fmt.Errorf("viz: encode PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// SVG renders the figure as SVG bytes.
func (p *Plot) SVG() ([]byte, error) {
	c := vgsvg.New(p.Width, p.Height)
	if err := p.render(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("viz: encode SVG: %w", err)
	}
	return buf.Bytes(), nil
}

// Save writes the figure to path; the extension chooses the format: .png, .svg or .pdf.
func (p *Plot) Save(path string) error {
	var (
		data []byte
		err  error
	)
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		data, err = p.PNG()
	case ".svg":
		data, err = p.SVG()
	case ".pdf":
		c := vgpdf.New(p.Width, p.Height)
		if err = p.render(draw.New(c)); err == nil {
			var buf bytes.Buffer
			_, err = c.WriteTo(&buf)
			data = buf.Bytes()
		}
	default:
		return fmt.Errorf("viz: cannot save %q: unknown extension %q; use .png, .svg or .pdf", path, ext)
	}
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("viz: save plot: %w", err)
	}
	return nil
}

// render draws the figure, turning a panic of the plotting library (bad data such as a
// non-positive value on a log axis) into an error.
func (p *Plot) render(c draw.Canvas) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if b, ok := r.(badInput); ok {
				err = b.error
				return
			}
			err = fmt.Errorf("viz: cannot draw the plot: %v", r)
		}
	}()
	p.Draw(c)
	return nil
}

func (p *Plot) dpi() int {
	if p.DPI <= 0 {
		return DefaultDPI
	}
	return p.DPI
}

// String describes the plot for text-only front ends.
func (p *Plot) String() string {
	s := fmt.Sprintf("plot %.0f×%.0f pt", float64(p.Width), float64(p.Height))
	if p.Title != "" {
		s = p.Title + ": " + s
	}
	if len(p.legend) > 0 {
		s += " [" + strings.Join(p.legend, ", ") + "]"
	}
	return s
}

// MaxInlineSVG is the largest SVG, in bytes, that MIMEBundle puts beside the PNG: an SVG grows
// with the data drawn (a trace of 200,000 draws is megabytes, where its PNG is tens of
// kilobytes), and the bundle is saved in the notebook and sent to the front end. A larger one
// is left out, the text says so, and Save writes it to a .svg file.
const MaxInlineSVG = 1 << 20

// MIMEBundle renders the plot as image/png, image/svg+xml (up to MaxInlineSVG bytes) and
// text/plain, for inline display. The PNG is raw bytes (JSON encoding turns them into the
// base64 Jupyter expects); a failed rendering shows as text.
func (p *Plot) MIMEBundle() map[string]any {
	b := map[string]any{"text/plain": p.String()}
	png, err := p.PNG()
	if err != nil {
		b["text/plain"] = err.Error()
		return b
	}
	b["image/png"] = png
	svg, err := p.SVG()
	switch {
	case err != nil:
	case len(svg) > MaxInlineSVG:
		b["text/plain"] = fmt.Sprintf("%s (shown as PNG: its SVG of %d bytes is over MaxInlineSVG, %d; Save it as .svg to have it)",
			p.String(), len(svg), MaxInlineSVG)
	default:
		b["image/svg+xml"] = string(svg)
	}
	return b
}

// Show displays the plot now, in the cell that runs (package display); outside a notebook,
// display prints its text description. Save writes it to a file.
func (p *Plot) Show() { display.ShowBundle(p) }

// Palette is the Okabe–Ito palette (Okabe & Ito 2008) without yellow, ordered for series:
// blue, vermillion, bluish green, orange, reddish purple, sky blue, black.
var Palette = []color.Color{
	color.NRGBA{0x00, 0x72, 0xB2, 0xFF},
	color.NRGBA{0xD5, 0x5E, 0x00, 0xFF},
	color.NRGBA{0x00, 0x9E, 0x73, 0xFF},
	color.NRGBA{0xE6, 0x9F, 0x00, 0xFF},
	color.NRGBA{0xCC, 0x79, 0xA7, 0xFF},
	color.NRGBA{0x56, 0xB4, 0xE9, 0xFF},
	color.NRGBA{0x00, 0x00, 0x00, 0xFF},
}

// Color is the i-th series colour of the palette (cycling).
func Color(i int) color.Color { return Palette[i%len(Palette)] }

// Translucent returns c with opacity alpha in [0, 1], as non-premultiplied colour (a
// color.RGBA with a small alpha is premultiplied and draws dark).
func Translucent(c color.Color, alpha float64) color.NRGBA {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	n.A = uint8(alpha*255 + 0.5)
	return n
}

// Font is the typeface of all text in viz plots.
var Font = font.Font{Typeface: "Liberation", Variant: "Sans"}

// textStyle is viz's style of text of the given size: black, in Font, with subscript digits
// drawn by vizText.
func textStyle(size vg.Length) draw.TextStyle {
	return draw.TextStyle{Color: color.Black, Font: font.From(Font, size), Handler: vizText}
}

// newPlot is a gonum plot in the viz style: sans-serif text drawn by vizText, light
// grid-free axes, ticks pointing out, legend text at 9 pt.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(Font, 11)
	p.Title.TextStyle.Handler = vizText
	p.Title.Padding = vg.Points(4)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(Font, 10)
		a.Label.TextStyle.Handler = vizText
		a.Tick.Label.Font = font.From(Font, 8.5)
		a.Tick.Label.Handler = vizText
		a.Tick.Length = vg.Points(3)
		a.Padding = vg.Points(2)
	}
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.Legend.TextStyle.Font = font.From(Font, 9)
	p.Legend.TextStyle.Handler = vizText
	p.Legend.ThumbnailWidth = vg.Points(18)
	return p
}

// cm is one centimetre.
const cm = vg.Centimeter
