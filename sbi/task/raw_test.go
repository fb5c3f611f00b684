package task

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSeriesTaskSummary checks that the summary of raw series is the summary task's data: the
// ODE solved at every saved time agrees at the kept times with the summary task's solve
// (tolerances 10⁻⁸ relative, so 10⁻⁶ is far above their difference and far below any other
// time's value), and for fixed parameters the means and standard deviations of Summary(raw
// simulations) agree with those of the summary task's simulations within 5 standard errors of
// their difference (2000 simulations of each; an error of layout or time grid moves them by
// tens of standard errors).
func TestSeriesTaskSummary(t *testing.T) {
	cases := []struct {
		raw   *SeriesTask
		theta []float64
		solve func(theta []float64, times []float64) ([][]float64, error)
		want  func(theta []float64) ([][]float64, error)
	}{
		{SIRRaw(), []float64{0.45, 0.13},
			func(th, ts []float64) ([][]float64, error) { return solveSIRAt(th[0], th[1], ts) },
			func(th []float64) ([][]float64, error) { return solveSIR(th[0], th[1]) }},
		{LotkaVolterraRaw(), []float64{0.9, 0.05, 0.8, 0.05}, solveLVAt, solveLV},
	}
	for _, c := range cases {
		t.Run(c.raw.Name(), func(t *testing.T) {
			if c.raw.DataDim() != c.raw.Length()*c.raw.Channels() || len(c.raw.Times()) != c.raw.Length() {
				t.Fatalf("DataDim %d, Length %d, Channels %d, %d times", c.raw.DataDim(), c.raw.Length(), c.raw.Channels(), len(c.raw.Times()))
			}
			all, err := c.solve(c.theta, c.raw.Times())
			if err != nil {
				t.Fatal(err)
			}
			kept, err := c.want(c.theta)
			if err != nil {
				t.Fatal(err)
			}
			for j, step := range c.raw.SummarySteps() {
				for s := range kept[j] {
					if a, b := all[step][s], kept[j][s]; math.Abs(a-b) > 1e-6*math.Max(1, math.Abs(b)) {
						t.Errorf("step %d, component %d: %v solved at every time, %v at the kept times", step, s, a, b)
					}
				}
			}
			const n = 2000
			sum := c.raw.SummaryTask()
			theta := mat.NewDense(n, len(c.theta), nil)
			for i := 0; i < n; i++ {
				theta.SetRow(i, c.theta)
			}
			rng := rand.New(rand.NewPCG(4, 5))
			a := c.raw.Summary(c.raw.Simulate(rng, theta))
			b := sum.Simulate(rng, theta)
			if _, cols := a.Dims(); cols != sum.DataDim() {
				t.Fatalf("Summary gives %d values, %s has %d", cols, sum.Name(), sum.DataDim())
			}
			for j := 0; j < sum.DataDim(); j++ {
				ma, sa := colMeanSD(a, j)
				mb, sb := colMeanSD(b, j)
				se := math.Sqrt((sa*sa + sb*sb) / n)
				if math.Abs(ma-mb) > 5*se+1e-9 {
					t.Errorf("value %d: mean %.4g of the summary of raw series, %.4g of %s (5 SE = %.2g)", j, ma, mb, sum.Name(), 5*se)
				}
				// The variance of a sample variance is (m₄ − σ⁴)/n, m₄ the fourth central
				// moment: valid for the rare counts of the first and last days too.
				va, vb := sa*sa, sb*sb
				if vse := math.Sqrt((colMoment4(a, j, ma)-va*va)/n + (colMoment4(b, j, mb)-vb*vb)/n); math.Abs(va-vb) > 5*vse+1e-9 {
					t.Errorf("value %d: variance %.4g of the summary of raw series, %.4g of %s (5 SE = %.2g)", j, va, vb, sum.Name(), 5*vse)
				}
			}
		})
	}
}

func colMeanSD(m *mat.Dense, j int) (mean, sd float64) {
	n, _ := m.Dims()
	for i := 0; i < n; i++ {
		mean += m.At(i, j) / float64(n)
	}
	for i := 0; i < n; i++ {
		d := m.At(i, j) - mean
		sd += d * d / float64(n-1)
	}
	return mean, math.Sqrt(sd)
}

func colMoment4(m *mat.Dense, j int, mean float64) float64 {
	n, _ := m.Dims()
	s := 0.0
	for i := 0; i < n; i++ {
		d := m.At(i, j) - mean
		s += d * d * d * d / float64(n)
	}
	return s
}

// TestSeriesTaskLayout checks Summary's reordering on a numbered matrix: raw channels-last
// (step, channel) to the summary task's channel after channel, at the kept steps.
func TestSeriesTaskLayout(t *testing.T) {
	lv := LotkaVolterraRaw()
	x := mat.NewDense(1, lv.DataDim(), nil)
	for j := 0; j < lv.DataDim(); j++ {
		x.Set(0, j, float64(j))
	}
	got := lv.Summary(x).RawRowView(0)
	for j := 0; j < 10; j++ {
		if got[j] != float64(2*21*j) || got[10+j] != float64(2*21*j+1) {
			t.Fatalf("Summary of (step, channel) numbers: %v, want prey at columns 0, 42, … then predators at 1, 43, …", got)
		}
	}
}
