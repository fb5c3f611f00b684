package nbtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
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
// old file or the whole new one, and an existing file keeps its mode and its links). Its head
// embeds the fonts that its figures name, known only once the body is rendered, so the body is
// rendered once into a temporary file beside the page (removed after), noting the fonts as it
// goes, and copied after the head: while the page is written it takes twice its size on disk.
// Beyond the notebook itself, memory holds one output's rendering at a time: SVG and HTML
// outputs are written as they are, and text made of characters that HTML escapes
// (< > & " ') grows up to six times. The page is byte for byte RenderHTML's.
func WriteHTML(path string, nb *Notebook, title string) error {
	if err := writeHTML(path, nb, title); err != nil {
		return fmt.Errorf("nbtest: write HTML: %w", err)
	}
	return nil
}

// writeHTML renders the body of nb into a temporary file, then writes the page at path: the
// head with the fonts the body names, and the body. The body's file is only read back, so it
// lies in os.TempDir, where a process killed meanwhile leaves nothing in the user's directory.
func writeHTML(path string, nb *Notebook, title string) error {
	body, err := os.CreateTemp("", "gosbi-page-body-*.html")
	if err != nil {
		return fmt.Errorf("a temporary file for the page's body: %w", err)
	}
	defer os.Remove(body.Name())
	defer body.Close()
	bw := bufio.NewWriter(body)
	used, err := renderBody(bw, nb)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fmt.Errorf("the page's body: %w", err)
	}
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		if err := writeHead(w, title, used); err != nil {
			return err
		}
		_, err := io.Copy(w, body)
		return err
	})
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
	var body, page bytes.Buffer
	used, _ := renderBody(&body, nb) // a bytes.Buffer does not fail
	_ = writeHead(&page, title, used)
	page.Write(body.Bytes())
	return page.Bytes()
}

// renderBody writes the body of nb to w and returns the faces of the text styles it names.
func renderBody(w io.Writer, nb *Notebook) (map[faceKey]bool, error) {
	scan := &fontScan{w: w, used: map[faceKey]bool{}}
	writeBody(scan, nb)
	return scan.used, scan.err
}

// writeHead writes the head of the page, with the @font-face rules of the used faces.
func writeHead(w io.Writer, title string, used map[faceKey]bool) error {
	_, err := fmt.Fprintf(w, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n<style>%s\n%s\n%s</style></head>\n<body>\n",
		html.EscapeString(title), fontFaces(used), pageStyle, codeCSS)
	return err
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

// fontScan writes to w what is written to it, noting the faces of the text styles in it
// (svgFontRE), until a write to w fails; it keeps the first error. A style contains none of
// < > " ', so one never spans two writes of writeBody, and scanning each write finds what
// scanning the whole body would.
type fontScan struct {
	w    io.Writer
	used map[faceKey]bool
	err  error
}

func (f *fontScan) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	for _, m := range svgFontRE.FindAllSubmatch(p, -1) {
		f.used[faceKey{strings.TrimSpace(string(m[1])), string(m[2]), string(m[3])}] = true
	}
	n, err := f.w.Write(p)
	f.err = err
	return n, err
}

func (f *fontScan) WriteString(s string) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	for _, m := range svgFontRE.FindAllStringSubmatch(s, -1) {
		f.used[faceKey{strings.TrimSpace(m[1]), m[2], m[3]}] = true
	}
	n, err := io.WriteString(f.w, s)
	f.err = err
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
