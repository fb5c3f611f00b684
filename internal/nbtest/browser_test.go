package nbtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
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
