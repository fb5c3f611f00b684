package sbi

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSimulationDisplay: a Simulation shows rows kept and dropped, the shapes and a few rows
// (with their input row numbers), in a bundle of bounded size whatever the number of rows,
// instead of a dump of its matrices.
func TestSimulationDisplay(t *testing.T) {
	const n, dx = 5000, 40
	theta := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		theta.Set(i, 0, float64(i))
		theta.Set(i, 1, 0.5)
	}
	// Rows 1 and 3 give NaN and are dropped, so the rows shown are input rows 0, 2, 4, 5, 6.
	sim, err := Simulate(rand.New(rand.NewPCG(1, 2)), func(_ *rand.Rand, th []float64) []float64 {
		x := make([]float64, dx)
		for j := range x {
			x[j] = th[0] + float64(j)/10
		}
		if th[0] == 1 || th[0] == 3 {
			x[0] = math.NaN()
		}
		return x
	}, theta)
	if err != nil {
		t.Fatal(err)
	}
	b := sim.MIMEBundle()
	text, _ := b["text/plain"].(string)
	htm, _ := b["text/html"].(string)
	for _, want := range []string{"4998 of 5000 rows kept", "2 dropped", "Theta 4998×2", "X 4998×40",
		"row 0: θ = [0 0.5]  x = [0 0.1 0.2 0.3 0.4 0.5 …]", "row 2: θ = [2 0.5]", "row 6: θ = [6 0.5]", "4993 more rows"} {
		if !strings.Contains(text, want) {
			t.Errorf("text %q lacks %q", text, want)
		}
	}
	if strings.Contains(text, "row 7:") || strings.Contains(text, "row 1:") {
		t.Errorf("text shows more than the first five kept rows: %q", text)
	}
	for _, want := range []string{"4998 of 5000 rows kept", "<table>", "<th>θ1</th>", "<th>x6</th>", "<th>…</th>", "<td>6</td>"} {
		if !strings.Contains(htm, want) {
			t.Errorf("html lacks %q: %s", want, htm)
		}
	}
	if strings.Count(htm, "<tr>") != 6 {
		t.Errorf("html has %d table rows, want a header and 5 rows", strings.Count(htm, "<tr>"))
	}
	if len(text)+len(htm) > 3000 {
		t.Errorf("display of %d bytes for %d rows: it should not grow with the data", len(text)+len(htm), n)
	}
}
