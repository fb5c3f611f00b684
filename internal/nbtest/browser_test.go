package nbtest

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// browserProbe measures the rendered page in the browser and writes the results into the
// DOM that --dump-dom prints: the page's scroll and client widths, the number of emphasis
// elements in the Markdown, the text of the first list item, and the number of highlighted
// tokens in the code cell.
const browserProbe = `<script>
const d = document.documentElement, md = document.querySelector('.markdown');
document.body.dataset.measure = [d.scrollWidth, d.clientWidth, md.querySelectorAll('em').length,
  document.querySelectorAll('pre.input span[class]').length].join(' ');
document.body.dataset.li = md.querySelector('li').textContent;
</script>`

// TestHTMLInBrowser renders a page in headless Chromium and checks what a reader sees: stars
// between words are not italics, a list item's continuation line is inside the item, a
// 19-column table scrolls inside its box instead of widening the page, and code is
// highlighted.
func TestHTMLInBrowser(t *testing.T) {
	chrome := Chromium()
	if chrome == "" {
		t.Skip("needs Debian's chromium (scripts/setup.sh installs it)")
	}
	var table strings.Builder
	table.WriteString("<table><tr><th>level</th>")
	for i := 1; i <= 19; i++ {
		fmt.Fprintf(&table, "<th>%.2f</th>", float64(i)/20)
	}
	table.WriteString("</tr><tr><th>empirical coverage</th>")
	for i := 1; i <= 19; i++ {
		fmt.Fprintf(&table, "<td>%.3f ± 0.012</td>", float64(i)/20)
	}
	table.WriteString("</tr></table>")
	one := 1
	nb := &Notebook{Cells: []*Cell{
		{CellType: "markdown", Source: "For fresh pairs (θ*, x) from the prior and the simulator, we ask whether θ*\n" +
			"falls inside the region.\n\n- an item whose text\n  goes on on a second line\n- another item"},
		{CellType: "code", Source: "cov := diag.ExpectedCoverage(npe, theta, x, diag.Levels(19))\ncov // 19 levels",
			ExecutionCount: &one, Outputs: []*Output{{OutputType: "execute_result", ExecutionCount: &one,
				Data: map[string]any{"text/html": table.String(), "text/plain": "coverage"}}}},
	}}
	page := strings.Replace(string(RenderHTML(nb, "browser test")), "</body>", browserProbe+"</body>", 1)
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chrome, append(ChromiumFlags(t.TempDir()), "--window-size=1000,800", "--dump-dom", "file://"+path)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dom := string(out)
	m := regexp.MustCompile(`data-measure="(\d+) (\d+) (\d+) (\d+)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no measures in the DOM:\n%s", dom)
	}
	v := make([]int, 4)
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	if scroll, client := v[0], v[1]; scroll > client {
		t.Errorf("the page scrolls sideways: %d px wide in a %d px window", scroll, client)
	}
	if v[2] != 0 {
		t.Errorf("%d italic elements in Markdown that has none", v[2])
	}
	if v[3] < 10 {
		t.Errorf("%d highlighted tokens in the code cell, want its keywords, names and operators", v[3])
	}
	if li := regexp.MustCompile(`data-li="([^"]*)"`).FindStringSubmatch(dom); li == nil || !strings.Contains(li[1], "goes on on a second line") {
		t.Errorf("the first list item does not hold its continuation line: %q", li)
	}
}

// fontProbe waits until the page's fonts are loaded, then writes into the DOM the width the
// browser gives each SVG text and the families of the loaded font faces of the page.
const fontProbe = `<script>
document.fonts.ready.then(() => {
  const w = [...document.querySelectorAll('svg text')].map(t => t.getComputedTextLength().toFixed(2));
  document.body.dataset.widths = w.join(' ');
  document.body.dataset.faces = [...document.fonts].filter(f => f.status === 'loaded').map(f => f.family + '/' + f.weight).join(',');
});
</script>`

// TestHTMLFiguresKeepTheirFonts renders SVG text the way viz draws it (gonum/plot, Liberation
// Sans, regular and bold) in a page of the HTML export and measures it in headless Chromium:
// each text is as wide as gonum/plot measured it, within 1%, also on a machine without the
// Liberation fonts installed (the page carries them), so that legends and labels stay inside
// their figure.
func TestHTMLFiguresKeepTheirFonts(t *testing.T) {
	chrome := Chromium()
	if chrome == "" {
		t.Skip("needs Debian's chromium (scripts/setup.sh installs it)")
	}
	if out, err := exec.Command("fc-list").Output(); err == nil {
		t.Logf("Liberation fonts installed on this machine: %v", strings.Contains(strings.ToLower(string(out)), "liberation"))
	}
	cache := font.NewCache(liberation.Collection())
	texts := []struct {
		s    string
		face font.Face
	}{
		{"posterior after calibration (BNRE, γ = 100), 19 levels", cache.Lookup(font.Font{Typeface: "Liberation", Variant: "Sans"}, 9)},
		{"Expected coverage of an over-confident NRE", cache.Lookup(font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}, 11)},
		{"0.0 0.2 0.4 0.6 0.8 1.0 nominal level", cache.Lookup(font.Font{Typeface: "Liberation", Variant: "Sans"}, 8.5)},
	}
	c := vgsvg.New(12*vg.Centimeter, 3*vg.Centimeter)
	for i, x := range texts {
		c.FillString(x.face, vg.Point{X: 4, Y: vg.Length(15 + 25*i)}, x.s)
	}
	var svg bytes.Buffer
	if _, err := c.WriteTo(&svg); err != nil {
		t.Fatal(err)
	}
	nb := &Notebook{Cells: []*Cell{{CellType: "code", Source: "viz.Coverage(cov)", Outputs: []*Output{
		{OutputType: "display_data", Data: map[string]any{"image/svg+xml": svg.String(), "text/plain": "figure"}}}}}}
	page := strings.Replace(string(RenderHTML(nb, "fonts")), "</body>", fontProbe+"</body>", 1)
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chrome, append(ChromiumFlags(t.TempDir()), "--window-size=1000,800", "--virtual-time-budget=10000", "--dump-dom", "file://"+path)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dom := string(out)
	m := regexp.MustCompile(`data-widths="([^"]*)"`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no widths in the DOM (the fonts never became ready)")
	}
	widths := strings.Fields(m[1])
	if len(widths) != len(texts) {
		t.Fatalf("%d SVG texts measured, want %d", len(widths), len(texts))
	}
	for i, x := range texts {
		got, _ := strconv.ParseFloat(widths[i], 64)
		want := x.face.Width(x.s).Points()
		if math.Abs(got-want) > 0.01*want {
			t.Errorf("%q is %.1f pt wide in the browser, %.1f pt as gonum/plot laid it out", x.s, got, want)
		}
	}
	if f := regexp.MustCompile(`data-faces="([^"]*)"`).FindStringSubmatch(dom); f == nil || !strings.Contains(f[1], "Liberation Sans/normal") || !strings.Contains(f[1], "Liberation Sans/bold") {
		t.Errorf("the page's Liberation Sans faces (regular and bold) were not loaded: %q", f)
	}
}
