package nbtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/gosbi/gosbi/internal/atomicfile"
)

// WriteHTML writes nb as a standalone HTML page: no files beside it, images inline (PNG and
// JPEG as base64 data URLs, SVG as markup).
//
// What the notebook holds as text is shown as text: cell sources, stream output, errors, and
// plain-text, LaTeX and JSON outputs are escaped, and raw HTML in Markdown (markdown cells and
// text/markdown outputs) is left out, as are links to javascript: URLs. HTML and SVG outputs
// (display.HTML, display.SVG, viz plots) are markup by their MIME type and go into the page as
// they are, scripts included: the page trusts them as Jupyter trusts the outputs of a notebook
// it has run itself, since gosbi run clears the outputs it reads and every output on the page
// was made by the notebook's code in that run. Open the page of a notebook only as far as you
// would run its code.
//
// The page is streamed to the file (atomically, as atomicfile.Write does: a reader sees the
// old file or the whole new one, and an existing file keeps its mode and its links). It is
// rendered twice, the first time only to find the fonts that its figures name, which the head
// embeds; beyond the notebook itself, memory holds one output's rendering at a time: SVG and
// HTML outputs are written as they are, and text made of characters that HTML escapes
// (< > & " ') grows up to six times. The page is byte for byte RenderHTML's.
func WriteHTML(path string, nb *Notebook, title string) error {
	if err := atomicfile.Write(path, 0o644, func(w io.Writer) error { return writePage(w, nb, title) }); err != nil {
		return fmt.Errorf("nbtest: write HTML: %w", err)
	}
	return nil
}

const pageStyle = `body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1f23}
.cell{margin:1rem 0}.prompt{color:#6a737d;font-family:monospace;font-size:.85rem}
pre{background:#f6f8fa;padding:.6rem .8rem;overflow-x:auto;border-radius:4px;margin:.3rem 0;font-size:.9rem}
pre.input{border-left:3px solid #00add8}pre.stderr{background:#fff5e6}pre.error{background:#ffeef0;color:#86181d}
.output img,.output svg{max-width:100%;height:auto}code{background:#f6f8fa;padding:0 .2rem;border-radius:3px}
table{border-collapse:collapse;display:block;max-width:100%;overflow-x:auto}td,th{border:1px solid #d0d7de;padding:.2rem .5rem}
.output{max-width:100%;overflow-x:auto}`

// RenderHTML returns the HTML page of nb, the page WriteHTML writes. The fonts that its SVG
// figures name are embedded (see fontFaces), so that their text has the size the figures
// were laid out for.
func RenderHTML(nb *Notebook, title string) []byte {
	var page bytes.Buffer
	_ = writePage(&page, nb, title) // a bytes.Buffer does not fail
	return page.Bytes()
}

// writePage writes the page of nb to w: the head with the fonts that the body names, found by
// rendering the body once into a fontScan, then the body.
func writePage(w io.Writer, nb *Notebook, title string) error {
	fonts := fontScan{used: map[faceKey]bool{}}
	writeBody(&fonts, nb)
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n<style>%s\n%s\n%s</style></head>\n<body>\n",
		html.EscapeString(title), fontFaces(fonts.used), pageStyle, codeCSS)
	writeBody(ew, nb)
	return ew.err
}

// writeBody writes the cells of nb to w. Each write begins or ends next to markup (< or >), so
// that no text style that fontScan looks for spans two writes (see fontScan).
func writeBody(w io.Writer, nb *Notebook) {
	for _, c := range nb.Cells {
		io.WriteString(w, `<div class="cell">`)
		switch c.CellType {
		case "markdown":
			io.WriteString(w, `<div class="markdown">`)
			io.WriteString(w, Markdown(c.Source))
			io.WriteString(w, `</div>`)
		case "code":
			n := " "
			if c.ExecutionCount != nil {
				n = fmt.Sprint(*c.ExecutionCount)
			}
			fmt.Fprintf(w, "<div class=\"prompt\">In [%s]:</div><pre class=\"input chroma\"><code>%s</code></pre>\n", n, goCode(c.Source))
			for _, o := range c.Outputs {
				writeOutput(w, o)
			}
		default:
			fmt.Fprintf(w, "<pre>%s</pre>", html.EscapeString(c.Source))
		}
		io.WriteString(w, "</div>\n")
	}
	io.WriteString(w, "</body></html>\n")
}

// writeOutput writes one output; an HTML or SVG output is written as it is, without a copy.
func writeOutput(w io.Writer, o *Output) {
	switch o.OutputType {
	case "stream":
		fmt.Fprintf(w, "<pre class=\"output %s\">%s</pre>\n", html.EscapeString(o.Name), html.EscapeString(StripANSI(o.Text)))
	case "error":
		tb := strings.Join(o.Traceback, "\n")
		if tb == "" {
			tb = o.Ename + ": " + o.Evalue
		}
		fmt.Fprintf(w, "<pre class=\"output error\">%s</pre>\n", html.EscapeString(StripANSI(tb)))
	case "display_data", "execute_result":
		prompt := ""
		if o.OutputType == "execute_result" && o.ExecutionCount != nil {
			prompt = fmt.Sprintf("<div class=\"prompt\">Out[%d]:</div>", *o.ExecutionCount)
		}
		io.WriteString(w, prompt+`<div class="output">`)
		io.WriteString(w, renderData(o.Data))
		io.WriteString(w, "</div>\n")
	}
}

// fontScan is a writer that keeps nothing but the faces of the text styles written to it
// (svgFontRE). A style contains none of < > " ', so one never spans two writes of writeBody,
// and scanning each write finds what scanning the whole body would.
type fontScan struct{ used map[faceKey]bool }

func (f *fontScan) Write(p []byte) (int, error) {
	for _, m := range svgFontRE.FindAllSubmatch(p, -1) {
		f.used[faceKey{strings.TrimSpace(string(m[1])), string(m[2]), string(m[3])}] = true
	}
	return len(p), nil
}

func (f *fontScan) WriteString(s string) (int, error) {
	for _, m := range svgFontRE.FindAllStringSubmatch(s, -1) {
		f.used[faceKey{strings.TrimSpace(m[1]), m[2], m[3]}] = true
	}
	return len(s), nil
}

// errWriter writes to w until a write fails and keeps the first error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) WriteString(s string) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := io.WriteString(e.w, s)
	e.err = err
	return n, err
}

// renderData shows the richest representation of a MIME bundle.
func renderData(data map[string]any) string {
	str := func(mime string) (string, bool) {
		s, ok := data[mime].(string)
		return s, ok
	}
	if s, ok := str("image/svg+xml"); ok {
		return s
	}
	for _, mime := range []string{"image/png", "image/jpeg", "image/gif"} {
		if s, ok := str(mime); ok {
			return fmt.Sprintf(`<img src="data:%s;base64,%s" alt="figure">`, mime, html.EscapeString(strings.TrimSpace(s)))
		}
	}
	if s, ok := str("text/html"); ok {
		return s
	}
	if s, ok := str("text/markdown"); ok {
		return Markdown(s)
	}
	if s, ok := str("text/latex"); ok {
		return "<pre>" + html.EscapeString(s) + "</pre>"
	}
	for _, mime := range sortedKeys(data) {
		if strings.HasSuffix(mime, "json") {
			j, _ := json.MarshalIndent(data[mime], "", "  ")
			return "<pre>" + html.EscapeString(string(j)) + "</pre>"
		}
	}
	if s, ok := str("text/plain"); ok {
		return "<pre>" + html.EscapeString(StripANSI(s)) + "</pre>"
	}
	return ""
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// markdown is CommonMark with GitHub's extensions (tables, strikethrough, autolinks, task
// lists) and TeX math passed through (texMath). Raw HTML in the source is left out, as goldmark
// does by default.
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM, texMath{}))

// Markdown renders notebook Markdown as HTML: CommonMark with GitHub's tables, strikethrough
// and autolinks. TeX math ($…$, $$…$$) is kept as written, as no script renders it in a
// standalone page.
func Markdown(src string) string {
	var b bytes.Buffer
	if err := markdown.Convert([]byte(src), &b); err != nil {
		return "<pre>" + html.EscapeString(src) + "</pre>"
	}
	return b.String()
}

// goCode highlights Go source as HTML spans, with the classes of codeStyle.
func goCode(src string) string {
	it, err := lexers.Get("go").Tokenise(nil, src)
	if err != nil {
		return html.EscapeString(src)
	}
	var b strings.Builder
	if err := codeFormatter.Format(&b, codeStyle, it); err != nil {
		return html.EscapeString(src)
	}
	return b.String()
}

var (
	codeFormatter = chromahtml.New(chromahtml.WithClasses(true), chromahtml.PreventSurroundingPre(true))
	codeStyle     = styles.Get("github")
)

// codeCSS is the style sheet of the highlighted code.
var codeCSS = func() string {
	var b strings.Builder
	if err := codeFormatter.WriteCSS(&b, codeStyle); err != nil {
		return ""
	}
	return b.String()
}()
