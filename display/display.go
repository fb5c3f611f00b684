package display

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/gosbi/gosbi/runenv"
)

// MIME types of the outputs this package produces.
const (
	MIMEText     = "text/plain"
	MIMEHTML     = "text/html"
	MIMEMarkdown = "text/markdown"
	MIMELaTeX    = "text/latex"
	MIMEPNG      = "image/png"
	MIMESVG      = "image/svg+xml"
	MIMEJSON     = "application/json"
)

// emit sends o to the host's display sink (runenv.SetDisplay); without one, its text goes to
// standard output.
func emit(o runenv.Output) {
	if f := runenv.Display(); f != nil {
		f(o)
		return
	}
	fmt.Fprintln(os.Stdout, PlainText(o.Data))
}

// PlainText returns the text/plain member of a bundle, or a short description of its contents.
func PlainText(data map[string]any) string {
	if s, ok := data[MIMEText].(string); ok {
		return s
	}
	for _, mime := range []string{MIMEMarkdown, MIMELaTeX, MIMEHTML, MIMESVG} {
		if s, ok := data[mime].(string); ok {
			return s
		}
	}
	for mime := range data {
		return "[" + mime + "]"
	}
	return ""
}

// ClearOutput clears the output of the running cell; with wait, the old output stays until
// the next output replaces it (no flicker in animations).
func ClearOutput(wait bool) {
	if f := runenv.Display(); f != nil {
		f(runenv.Output{Clear: true, Wait: wait})
	}
}

// Show displays v richly, as if it were the last expression of a cell.
func Show(v any) { emit(runenv.Output{Data: Render(v)}) }

// ShowBundle displays a value with a MIMEBundle method. Values of types declared in a
// notebook cell need it: the interpreter passes them to Show (whose parameter is any) without
// their methods, while a MIMEBundler parameter keeps them.
func ShowBundle(b MIMEBundler) { emit(runenv.Output{Data: Render(b)}) }

// Bundle displays a MIME bundle as it is: keys are MIME types, values strings (or, for
// application/json, any JSON value; for images, []byte or base64 text).
func Bundle(data map[string]any) { emit(runenv.Output{Data: data}) }

// HTML displays an HTML fragment.
func HTML(html string) { Show(HTMLValue(html)) }

// Markdown displays Markdown text (LaTeX between $ signs is rendered by Jupyter).
func Markdown(md string) { Show(MarkdownValue(md)) }

// LaTeX displays a LaTeX formula or text, e.g. `$\int_0^1 f(x)\,dx$`.
func LaTeX(tex string) { Show(LaTeXValue(tex)) }

// Text displays plain text.
func Text(s string) { Show(TextValue(s)) }

// PNG displays an image encoded as PNG.
func PNG(data []byte) { Show(PNGValue(data)) }

// SVG displays an SVG image. It is sent both as image/svg+xml and as HTML, so exported
// notebooks (nbconvert) show it too.
func SVG(svg string) { Show(SVGValue(svg)) }

// Image displays img, encoded as PNG.
func Image(img image.Image) { Show(img) }

// JSON displays v as JSON (an expandable tree in JupyterLab). Values that cannot be encoded
// as JSON are shown with their encoding error.
func JSON(v any) { Show(JSONValue{V: v}) }

// A Display is one output area that can be replaced in place, e.g. a progress report or an
// animation: the first call shows it, later calls update it (Jupyter update_display_data).
type Display struct {
	id    string
	shown atomic.Bool
}

var displayCount atomic.Int64

// New returns an updatable display; nothing is shown until its first update.
func New() *Display {
	return &Display{id: "gosbi-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(displayCount.Add(1), 10)}
}

// ID returns the display's id, unique within the process.
func (d *Display) ID() string { return d.id }

// Update replaces the display's content by v, rendered as Show would.
func (d *Display) Update(v any) {
	emit(runenv.Output{Data: Render(v), DisplayID: d.id, Update: d.shown.Swap(true)})
}

// UpdateBundle replaces the display's content by a value with a MIMEBundle method (see
// ShowBundle).
func (d *Display) UpdateBundle(b MIMEBundler) {
	emit(runenv.Output{Data: Render(b), DisplayID: d.id, Update: d.shown.Swap(true)})
}

// HTML replaces the display's content by an HTML fragment.
func (d *Display) HTML(html string) { d.Update(HTMLValue(html)) }

// Markdown replaces the display's content by Markdown text.
func (d *Display) Markdown(md string) { d.Update(MarkdownValue(md)) }

// Text replaces the display's content by plain text.
func (d *Display) Text(s string) { d.Update(TextValue(s)) }

// PNG replaces the display's content by a PNG image.
func (d *Display) PNG(data []byte) { d.Update(PNGValue(data)) }

// SVG replaces the display's content by an SVG image.
func (d *Display) SVG(svg string) { d.Update(SVGValue(svg)) }

// Image replaces the display's content by img.
func (d *Display) Image(img image.Image) { d.Update(img) }

// HTMLValue is an HTML fragment, shown as HTML.
type HTMLValue string

// MIMEBundle implements the rich display of HTMLValue.
func (h HTMLValue) MIMEBundle() map[string]any {
	return map[string]any{MIMEHTML: string(h), MIMEText: string(h)}
}

// MarkdownValue is Markdown text, shown rendered.
type MarkdownValue string

// MIMEBundle implements the rich display of MarkdownValue.
func (m MarkdownValue) MIMEBundle() map[string]any {
	return map[string]any{MIMEMarkdown: string(m), MIMEText: string(m)}
}

// LaTeXValue is LaTeX source, shown rendered.
type LaTeXValue string

// MIMEBundle implements the rich display of LaTeXValue.
func (l LaTeXValue) MIMEBundle() map[string]any {
	return map[string]any{MIMELaTeX: string(l), MIMEText: string(l)}
}

// TextValue is plain text, shown as it is (without quotes).
type TextValue string

// MIMEBundle implements the display of TextValue.
func (t TextValue) MIMEBundle() map[string]any { return map[string]any{MIMEText: string(t)} }

// PNGValue is a PNG-encoded image.
type PNGValue []byte

// MIMEBundle implements the rich display of PNGValue.
func (p PNGValue) MIMEBundle() map[string]any {
	return map[string]any{MIMEPNG: []byte(p), MIMEText: fmt.Sprintf("<PNG image, %d bytes>", len(p))}
}

// SVGValue is an SVG document.
type SVGValue string

// MIMEBundle implements the rich display of SVGValue.
func (s SVGValue) MIMEBundle() map[string]any {
	return map[string]any{MIMESVG: string(s), MIMEHTML: "<div>" + string(s) + "</div>",
		MIMEText: fmt.Sprintf("<SVG image, %d bytes>", len(s))}
}

// JSONValue is any value shown as JSON.
type JSONValue struct{ V any }

// MIMEBundle implements the rich display of JSONValue.
func (j JSONValue) MIMEBundle() map[string]any {
	b, err := json.Marshal(j.V)
	if err != nil {
		return map[string]any{MIMEText: fmt.Sprintf("<cannot show as JSON: %v>", err)}
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return map[string]any{MIMEText: fmt.Sprintf("<cannot show as JSON: %v>", err)}
	}
	var ind bytes.Buffer
	_ = json.Indent(&ind, b, "", "  ")
	return map[string]any{MIMEJSON: tree, MIMEText: ind.String()}
}

func encodePNG(img image.Image) map[string]any {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return map[string]any{MIMEText: fmt.Sprintf("<image: cannot encode PNG: %v>", err)}
	}
	r := img.Bounds()
	return map[string]any{MIMEPNG: b.Bytes(), MIMEText: fmt.Sprintf("<image %d×%d>", r.Dx(), r.Dy())}
}
