package task

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/internal/sbibmtest"
)

func readShared(t *testing.T, name string) [][]float64 {
	t.Helper()
	dir, err := DataDir()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "bernoulli_glm", name))
	if errors.Is(err, fs.ErrNotExist) {
		sbibmtest.Skip(t, fmt.Errorf("bernoulli_glm: %w: run `gosbi data fetch` to download it", err))
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The two files have no header line: prepend one for readCSV.
	rows, err := readCSV(io2header(f))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestGLMDesignMatchesSBIBM compares the stimulus (numpy RandomState(42).randn(100), rebuilt with
// the Mersenne Twister) and the design matrix with sbibm's stored copies (float32 values
// written with 9 digits).
func TestGLMDesignMatchesSBIBM(t *testing.T) {
	sbibmtest.Use(t)
	stim := readShared(t, "stimulus.csv")
	s := glmStimulus()
	for i, r := range stim {
		if math.Abs(r[0]-s[i]) > 1e-8 {
			t.Fatalf("stimulus[%d] = %v, sbibm %v", i, s[i], r[0])
		}
	}
	design := readShared(t, "design_matrix.csv")
	for i, r := range design {
		for j, v := range r {
			if math.Abs(v-glmDesign[i*glmParams+j]) > 1e-8 {
				t.Fatalf("design[%d,%d] = %v, sbibm %v", i, j, glmDesign[i*glmParams+j], v)
			}
		}
	}
}

// TestGLMSummaryOfStoredSpikeTrains: sbibm stores both the raw spike train and its summary for
// each observation; the summary Xᵀy of the raw train must reproduce the stored summary.
func TestGLMSummaryOfStoredSpikeTrains(t *testing.T) {
	sbibmtest.Use(t)
	for k := 1; k <= NumObservations; k++ {
		raw, err := BernoulliGLMRaw().Observation(k)
		needData(t, err)
		sum, err := BernoulliGLM().Observation(k)
		needData(t, err)
		for j := 0; j < glmParams; j++ {
			s := 0.0
			for t := 0; t < glmSteps; t++ {
				s += glmDesign[t*glmParams+j] * raw[t]
			}
			if math.Abs(s-sum[j]) > 1e-4*math.Max(1, math.Abs(s)) {
				t.Errorf("observation %d: summary[%d] = %v from the raw train, stored %v", k, j, s, sum[j])
			}
		}
	}
}

// TestGLMPrior checks the precision matrix of the definition at entries worked out by hand:
// B₀₀ = 0.5; (FᵀF)₀₀ = 1² + (−2)² + 1² = 6 and (FᵀF)₀₁ = −2·(1 + √(1/9)) + 1·(−2) = −14/3,
// since the first columns of F = D² + diag(√(i/9)) are (1, −2, 1, 0, …) and
// (0, 1 + 1/3, −2, 1, 0, …).
func TestGLMPrior(t *testing.T) {
	_, cov, ok := meanCov(BernoulliGLM().Prior())
	if !ok {
		t.Fatal("no covariance")
	}
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		t.Fatal("covariance not positive definite")
	}
	var prec mat.SymDense
	if err := ch.InverseTo(&prec); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		i, j int
		want float64
	}{{0, 0, 0.5}, {1, 1, 6}, {1, 2, -14.0 / 3}, {0, 1, 0}, {1, 5, 0}} {
		if got := prec.At(c.i, c.j); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("precision[%d,%d] = %v, want %v", c.i, c.j, got, c.want)
		}
	}
}

// TestGLMSimulator: with only the offset c non-zero, every y_t ~ Bernoulli(σ(c)), so the spike
// count x₀ has mean 100σ(c) and variance 100σ(1−σ); tolerance 5 standard errors.
func TestGLMSimulator(t *testing.T) {
	const n = 20000
	th := make([]float64, glmParams)
	th[0] = -0.7
	x := BernoulliGLM().Simulate(rand.New(rand.NewPCG(1, 1)), constTheta(n, th...))
	p := 1 / (1 + math.Exp(0.7))
	c := column(x, 0)
	if m, se := meanSE(c); math.Abs(m-100*p) > 5*se {
		t.Errorf("spike count mean %v, want %v", m, 100*p)
	}
	if v, se := varSE(c); math.Abs(v-100*p*(1-p)) > 5*se {
		t.Errorf("spike count variance %v, want %v", v, 100*p*(1-p))
	}
	raw := BernoulliGLMRaw().Simulate(rand.New(rand.NewPCG(1, 1)), constTheta(3, th...))
	for _, v := range raw.RawRowView(0) {
		if v != 0 && v != 1 {
			t.Fatalf("raw spike train holds %v", v)
		}
	}
}
