package nbtest_test

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// kccsdPaperN are the sample sizes of the paper's curves (Glaser et al. 2023, Figs. F.1–F.2
// and F.5–F.6), each point a rejection rate over 100 datasets.
var kccsdPaperN = []int{64, 128, 256, 512, 1024}

// kccsdPaper holds the paper's "Exp. Fisher + Gaussian" curves for the kccsd notebook's three
// methods, by table row (model, method) as the notebook prints them.
var kccsdPaper = map[[2]string][]float64{
	{"MGM (H₀)", "KCCSD exact Fisher"}:                     {0.08, 0.06, 0.04, 0.03, 0.08},
	{"MGM (H₀)", "KCCSD Fisher, 10 base samples"}:          {0.05, 0.06, 0.03, 0.00, 0.03},
	{"MGM (H₀)", "SKCE exact"}:                             {0.07, 0.05, 0.03, 0.04, 0.01},
	{"MMGM δ=0.1·1 (H₁)", "KCCSD exact Fisher"}:            {0.28, 0.42, 0.75, 0.99, 1.00},
	{"MMGM δ=0.1·1 (H₁)", "KCCSD Fisher, 10 base samples"}: {0.23, 0.44, 0.74, 0.98, 1.00},
	{"MMGM δ=0.1·1 (H₁)", "SKCE exact"}:                    {0.22, 0.38, 0.78, 0.97, 1.00},
}

// zMaxPaper is the two-sided 0.001 quantile of the two-proportion z.
const zMaxPaper = 3.29

// twoProportionZ is the z of the rate a over na datasets against b over nb, with the pooled
// rate (0 when both rates are 0 or 1).
func twoProportionZ(a float64, na int, b float64, nb int) float64 {
	pool := (a*float64(na) + b*float64(nb)) / float64(na+nb)
	if pool <= 0 || pool >= 1 {
		return 0
	}
	return (a - b) / math.Sqrt(pool*(1-pool)*(1/float64(na)+1/float64(nb)))
}

// binomUpper is the smallest k with P(Binomial(n, p) > k) ≤ tail.
func binomUpper(n int, p, tail float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	for k := 0; k <= n; k++ {
		if 1-b.CDF(float64(k)) <= tail {
			return k
		}
	}
	return n
}

// compareWithPaper returns one line per point of ours (reps datasets a point) that disagrees
// with the paper's curve: |z| > zMaxPaper, or for a null model a false-rejection count above the
// 0.999 binomial quantile of a level-0.05 test.
func compareWithPaper(ours, paper []float64, reps int, null bool) []string {
	var bad []string
	up := binomUpper(reps, 0.05, 0.001)
	for k := range ours {
		if z := twoProportionZ(ours[k], reps, paper[k], 100); math.Abs(z) > zMaxPaper {
			bad = append(bad, fmt.Sprintf("n = %d: %.2f against the paper's %.2f (z = %+.2f)", kccsdPaperN[k], ours[k], paper[k], z))
		}
		if c := int(math.Round(ours[k] * float64(reps))); null && c > up {
			bad = append(bad, fmt.Sprintf("n = %d: %d/%d false rejections, above %d", kccsdPaperN[k], c, reps, up))
		}
	}
	return bad
}

var (
	rowRE  = regexp.MustCompile(`<tr>(.*?)</tr>`)
	cellRE = regexp.MustCompile(`<t[dh]>(.*?)</t[dh]>`)
)

// rateTable parses the notebook's table of rejection rates: its header's sample sizes and, by
// (model, method), one rate per sample size.
func rateTable(html string) (ns []int, rates map[[2]string][]float64, err error) {
	rates = map[[2]string][]float64{}
	for i, row := range rowRE.FindAllStringSubmatch(html, -1) {
		var cells []string
		for _, c := range cellRE.FindAllStringSubmatch(row[1], -1) {
			cells = append(cells, c[1])
		}
		if i == 0 {
			for _, c := range cells[2:] {
				n, err := strconv.Atoi(strings.TrimPrefix(c, "n = "))
				if err != nil {
					return nil, nil, fmt.Errorf("header cell %q: %w", c, err)
				}
				ns = append(ns, n)
			}
			continue
		}
		if len(cells) != len(ns)+2 {
			return nil, nil, fmt.Errorf("row %d has %d cells, want %d", i, len(cells), len(ns)+2)
		}
		for _, c := range cells[2:] {
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				return nil, nil, fmt.Errorf("row %d: %w", i, err)
			}
			rates[[2]string{cells[0], cells[1]}] = append(rates[[2]string{cells[0], cells[1]}], v)
		}
	}
	return ns, rates, nil
}

// htmlOutputs returns the text/html outputs of the cells of nb.
func htmlOutputs(nb *nbtest.Notebook) []string {
	var out []string
	for _, c := range nb.Cells {
		for _, o := range c.Outputs {
			switch v := o.Data["text/html"].(type) {
			case string:
				out = append(out, v)
			case []any:
				var sb strings.Builder
				for _, p := range v {
					s, _ := p.(string)
					sb.WriteString(s)
				}
				out = append(out, sb.String())
			}
		}
	}
	return out
}

// TestKCCSDSavedRunAgainstPaper compares the saved full run of the kccsd notebook with the
// paper at the paper's own 100 repetitions per point, where the notebook's quick mode (20)
// cannot: the rejection rates of MGM and MMGM (δ = 0.1·1) of its three methods at n = 64…1024
// against Figs. F.1–F.2 and F.5–F.6, each point by the two-proportion z of two rates over 100
// datasets (|z| ≤ 3.29: it flags differences above about 0.23 near a rate of 0.5 and 0.14 near
// 0.1 or 0.9, where 20 repetitions flag only 0.40 and 0.24), and MGM's false rejections under
// the 0.999 binomial quantile of a level-0.05 test. The run must be a full one: parameter
// quick = false, 100 repetitions.
func TestKCCSDSavedRunAgainstPaper(t *testing.T) {
	run, err := nbtest.ReadNotebook("../../notebooks/results/kccsd-full.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	var full, hundred bool
	for _, c := range run.Cells {
		full = full || (c.CellType == "code" && strings.Contains(c.Source, "quick = false"))
		hundred = hundred || (c.CellType == "code" && strings.Contains(c.Source, "reps = 100"))
	}
	if !full || !hundred {
		t.Fatalf("the saved kccsd run is not a full run with 100 repetitions (quick = false: %v, reps = 100: %v)", full, hundred)
	}
	var table string
	for _, h := range htmlOutputs(run) {
		if strings.Contains(h, "MGM (H₀)") && strings.Contains(h, "MMGM δ=0.1·1 (H₁)") {
			table = h
		}
	}
	if table == "" {
		t.Fatal("the saved kccsd run has no table of MGM/MMGM rejection rates")
	}
	ns, rates, err := rateTable(table)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ns) != fmt.Sprint(kccsdPaperN) {
		t.Fatalf("the saved run's sample sizes %v, want the paper's %v", ns, kccsdPaperN)
	}
	for key, paper := range kccsdPaper {
		ours, ok := rates[key]
		if !ok {
			t.Errorf("%s, %s: not in the saved run's table", key[0], key[1])
			continue
		}
		for _, b := range compareWithPaper(ours, paper, 100, strings.HasPrefix(key[0], "MGM")) {
			t.Errorf("%s, %s: %s", key[0], key[1], b)
		}
		t.Logf("%s, %s: ours %v, paper %v", key[0], key[1], ours, paper)
	}
}

// TestCompareWithPaperPower shows what compareWithPaper detects at 100 and at 20 repetitions:
// the paper's MMGM curve of the exact KCCSD with its n = 128 point (0.42) moved by 0.25 is
// flagged at 100 repetitions and not at 20; moved by 0.1 it is flagged at neither; a null
// curve with 15/100 false rejections (the 0.999 quantile is 13) is flagged by the binomial bound.
func TestCompareWithPaperPower(t *testing.T) {
	paper := kccsdPaper[[2]string{"MMGM δ=0.1·1 (H₁)", "KCCSD exact Fisher"}]
	moved := func(d float64) []float64 {
		c := append([]float64(nil), paper...)
		c[1] += d
		return c
	}
	for _, tc := range []struct {
		shift   float64
		reps    int
		flagged bool
	}{
		{0.25, 100, true}, {-0.25, 100, true}, {0.25, 20, false}, {0.1, 100, false}, {0, 100, false}, {0.45, 20, true},
	} {
		if got := len(compareWithPaper(moved(tc.shift), paper, tc.reps, false)) > 0; got != tc.flagged {
			t.Errorf("n = 128 point moved by %+.2f, %d repetitions: flagged %v, want %v", tc.shift, tc.reps, got, tc.flagged)
		}
	}
	null := []float64{0.05, 0.15, 0.05, 0.05, 0.05}
	if bad := compareWithPaper(null, []float64{0.08, 0.10, 0.04, 0.03, 0.08}, 100, true); len(bad) != 1 {
		t.Errorf("15/100 false rejections: flagged %q, want one line", bad)
	}
}
