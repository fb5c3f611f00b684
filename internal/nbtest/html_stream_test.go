package nbtest

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// plotText is the text style gonum/plot's SVG canvas writes, which makes the page embed a font.
const plotText = `<text style="font-family:Liberation Sans;font-variant:normal;font-weight:normal;font-style:normal;font-size:10px">t</text>`

// pageNotebook is a notebook with every kind of cell and output the page shows.
func pageNotebook() *Notebook {
	one, two := 1, 2
	return &Notebook{Cells: []*Cell{
		{CellType: "markdown", Source: "# Title\n\nSome *text* with `code`, $x^2$ and a [link](http://a/).\n\n| a | b |\n|---|---|\n| 1 | 2 |"},
		{CellType: "code", Source: "fmt.Println(\"hi\") // <b>", ExecutionCount: &one, Outputs: []*Output{
			{OutputType: "stream", Name: "stdout", Text: "hi <b>&\n"},
			{OutputType: "stream", Name: "stderr", Text: "\x1b[31mred\x1b[0m\n"},
			{OutputType: "display_data", Data: map[string]any{"image/svg+xml": "<svg>" + plotText + "</svg>", "text/plain": "plot"}},
			{OutputType: "display_data", Data: map[string]any{"image/png": "iVBORw0KGgo=\n"}},
			{OutputType: "display_data", Data: map[string]any{"text/html": "<table><tr><td>1</td></tr></table>"}},
			{OutputType: "display_data", Data: map[string]any{"text/markdown": "**bold**"}},
			{OutputType: "display_data", Data: map[string]any{"text/latex": "$\\alpha$"}},
			{OutputType: "display_data", Data: map[string]any{"application/json": map[string]any{"a": []any{1.0, "b"}}}},
			{OutputType: "execute_result", ExecutionCount: &one, Data: map[string]any{"text/plain": "42"}},
		}},
		{CellType: "code", Source: "panic(1)", ExecutionCount: &two, Outputs: []*Output{
			{OutputType: "error", Ename: "panic", Evalue: "1", Traceback: []string{"panic: 1", "goroutine 1"}},
			{OutputType: "error", Ename: "E", Evalue: "v"},
		}},
		{CellType: "code", Source: "x := 1"},
		{CellType: "raw", Source: "raw <text>"},
	}}
}

// TestWriteHTMLSameAsRenderHTML: the page WriteHTML streams to its file is byte for byte the
// page RenderHTML returns, fonts included.
func TestWriteHTMLSameAsRenderHTML(t *testing.T) {
	nb := pageNotebook()
	path := filepath.Join(t.TempDir(), "page.html")
	if err := WriteHTML(path, nb, "a <title>"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := RenderHTML(nb, "a <title>")
	if !bytes.Equal(got, want) {
		t.Errorf("WriteHTML wrote %d bytes, RenderHTML returns %d; they differ", len(got), len(want))
	}
	if !bytes.Contains(got, []byte("@font-face{font-family:\"Liberation Sans\"")) {
		t.Error("the page does not embed the font its figure names")
	}
}

// TestWriteHTMLMemory: WriteHTML streams the page to its file, so writing a notebook with a
// 16 MiB figure allocates less than the figure again. Before the fix it built the body in
// memory and copied it into the page (about three copies of the output).
func TestWriteHTMLMemory(t *testing.T) {
	const size = 16 << 20
	var svg strings.Builder
	svg.Grow(size + 512)
	svg.WriteString(`<svg><path d="`)
	for svg.Len() < size {
		svg.WriteString("M0,0L1,1 ")
	}
	svg.WriteString(`"/>` + plotText + `</svg>`)
	nb := &Notebook{Cells: []*Cell{{CellType: "code", Source: "plot", Outputs: []*Output{
		{OutputType: "display_data", Data: map[string]any{"image/svg+xml": svg.String(), "text/plain": "plot"}},
	}}}}
	path := filepath.Join(t.TempDir(), "page.html")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := WriteHTML(path, nb, "big"); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size {
		t.Errorf("writing the page of a %d-byte figure allocated %d bytes, want less than the figure", size, alloc)
	}
	if st, err := os.Stat(path); err != nil || st.Size() < size {
		t.Errorf("page: %v, %v", st, err)
	}
}

// renderCount is a JSON output that counts how often the page renders it, and calls during
// (when not nil) as it is rendered.
type renderCount struct {
	n      *int
	during func()
}

func (r renderCount) MarshalJSON() ([]byte, error) {
	*r.n++
	if r.during != nil {
		r.during()
	}
	return []byte(`{"rendered": true}`), nil
}

// TestWriteHTMLRendersOnce: WriteHTML renders each output once (it rendered the whole body a
// second time only to find the fonts the head embeds), and leaves nothing but the page in its
// directory; nor does it put a file there while it renders, which a killed process would
// leave behind.
func TestWriteHTMLRendersOnce(t *testing.T) {
	n := 0
	dir := t.TempDir()
	var whileRendering []string
	nb := pageNotebook()
	nb.Cells = append(nb.Cells, &Cell{CellType: "code", Source: "x", Outputs: []*Output{
		{OutputType: "display_data", Data: map[string]any{"application/json": renderCount{&n, func() {
			whileRendering = dirNames(t, dir)
		}}}},
	}})
	if err := WriteHTML(filepath.Join(dir, "page.html"), nb, "once"); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("WriteHTML rendered an output %d times, want once", n)
	}
	if len(whileRendering) != 0 {
		t.Errorf("while the body renders, the directory holds %v, want nothing", whileRendering)
	}
	if names := dirNames(t, dir); len(names) != 1 || names[0] != "page.html" {
		t.Errorf("the directory holds %v, want only page.html", names)
	}
}

// dirNames returns the names of the entries of dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
