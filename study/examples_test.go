package study_test

import (
	"math"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// examples are the studies shipped in examples/studies, with the check of each one's results.
var examples = []struct {
	name  string
	check func(t *testing.T, s *study.Study)
}{
	{"npe-two-moons", checkNPEExample},
	{"nre-bnre", checkNREExample},
}

// runExample runs an example study with `gosbi study run` and the given executor options, in
// a new directory, and opens it.
func runExample(t *testing.T, name string, opts ...string) *study.Study {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	args := append([]string{"study", "run", filepath.Join("..", "examples", "studies", name, "spec.json"), "--dir", dir}, opts...)
	out, err := exec.Command(gosbi(t), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("gosbi %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	s, err := study.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Status(); !st.Complete() {
		t.Fatalf("%s is not complete after the run:\n%s", name, st)
	}
	return s
}

// TestExamplesLocal runs the example studies with the local executor and checks what each
// is meant to show.
func TestExamplesLocal(t *testing.T) {
	study.RequireStudyRuns(t)
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			ex.check(t, runExample(t, ex.name, "--executor", "local"))
		})
	}
}

// TestExamplesSlurm runs the example studies through Slurm: their records are those of the
// local executor, to the bit.
func TestExamplesSlurm(t *testing.T) {
	requireSlurm(t)
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			remote := runExample(t, ex.name, "--executor", "slurm", "--time", "10:00", "--partition", slurmPartition(t))
			ex.check(t, remote)
			local := runExample(t, ex.name, "--executor", "local")
			if a, b := metrics(t, local), metrics(t, remote); !reflect.DeepEqual(a, b) {
				t.Errorf("Slurm and local records differ:\nlocal %v\nslurm %v", a, b)
			}
		})
	}
}

// checkNPEExample: every training recorded its metrics and a coverage rank per test pair, and
// the mean log density of the true parameters grows from budget 200 to 1000 (means over the
// seeds) by more than three standard errors.
func checkNPEExample(t *testing.T, s *study.Study) {
	tab, err := s.Results("train")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 4 {
		t.Fatalf("%d training records, want 4", tab.Len())
	}
	mean := func(budget string) (m, se float64) {
		rows := tab.Where("budget", budget)
		lp, err := rows.Values("logp")
		if err != nil {
			t.Fatal(err)
		}
		ses, err := rows.Values("logp_se")
		if err != nil {
			t.Fatal(err)
		}
		for k := range lp {
			m += lp[k] / float64(len(lp))
			se += ses[k] * ses[k] / float64(len(lp)*len(lp))
		}
		return m, math.Sqrt(se)
	}
	small, seSmall := mean("200")
	large, seLarge := mean("1000")
	if se := math.Hypot(seSmall, seLarge); !(large-small > 3*se) {
		t.Errorf("E[log q(θ|x)] %.3f at budget 200, %.3f at 1000: want a gain of more than 3 standard errors (%.3f)", small, large, 3*se)
	}
	ranks, levels, err := tab.PooledRanks()
	if err != nil || len(ranks) != 4*300 || len(levels) != 19 {
		t.Errorf("pooled ranks: %d ranks at %d levels, %v; want 1200 at 19", len(ranks), len(levels), err)
	}
	sum, err := s.Results("summary")
	if err != nil || sum.Len() != 1 {
		t.Fatalf("summary %v, %v", sum, err)
	}
	if got, _ := sum.Records[0].Metric("logp_budget_1000"); math.Abs(got-large) > 1e-12 {
		t.Errorf("summary logp_budget_1000 = %v, want the mean over seeds %v", got, large)
	}
}

// checkNREExample: BNRE's balancing statistic B̂ is closer to 1 than NRE's at the smaller
// budget, by more than two standard errors of the difference (the paper's claim that the
// penalty balances the classifier), and every training saved its model.
func checkNREExample(t *testing.T, s *study.Study) {
	tab, err := s.Results("train")
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != 4 {
		t.Fatalf("%d training records, want 4", tab.Len())
	}
	imbalance := func(method string) (float64, float64) {
		rows := tab.Where("method", method).Where("budget", "500")
		if rows.Len() != 1 {
			t.Fatalf("%d records of %s at budget 500", rows.Len(), method)
		}
		b, _ := rows.Records[0].Metric("balance")
		se, _ := rows.Records[0].Metric("balance_se")
		return math.Abs(1 - b), se
	}
	nre, seNRE := imbalance("NRE")
	bnre, seBNRE := imbalance("BNRE")
	if se := math.Hypot(seNRE, seBNRE); !(nre-bnre > 2*se) {
		t.Errorf("|1 − B̂| at budget 500: NRE %.4f, BNRE %.4f; want BNRE's smaller by more than 2 standard errors (%.4f)", nre, bnre, 2*se)
	}
	for _, r := range tab.Records {
		if len(r.Files) != 1 || r.Files[0] != "nre.model" {
			t.Errorf("%s files %v, want its model", r.Key, r.Files)
		}
	}
}
