package viz

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/gosbi/gosbi/sbi"
)

// TestMCMCTitleIsTheWholeVerdict: a verdict longer than 90 bytes was cut to its first clause
// ("poor mixing"), dropping which parameters failed and by how much. Titles wrap at spaces, so
// the whole verdict is the title and every word of it is drawn.
func TestMCMCTitleIsTheWholeVerdict(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	chains := make([][][]float64, 4)
	for c := range chains {
		for range 100 {
			// chains centred apart: R-hat far above its limit for both parameters
			chains[c] = append(chains[c], []float64{float64(c) + rng.NormFloat64(), 2*float64(c) + rng.NormFloat64()})
		}
	}
	h, err := sbi.NewMCMCHealth("slice", chains)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(h.Verdict(), "R̂", "R-hat")
	if len(want) <= 90 || !strings.HasPrefix(want, "poor mixing: ") {
		t.Fatalf("verdict %q: want a poor-mixing verdict longer than 90 bytes", want)
	}
	p := MCMC(h)
	if p.Title != want {
		t.Errorf("title %q, want the whole verdict %q", p.Title, want)
	}
	var rec recorder.Canvas
	p.Draw(draw.NewCanvas(&rec, p.Width, p.Height))
	var words []string
	for _, a := range rec.Actions {
		if fs, ok := a.(*recorder.FillString); ok && fs.Size == 12 {
			words = append(words, strings.Fields(fs.String)...)
		}
	}
	if got := strings.Join(words, " "); got != strings.Join(strings.Fields(want), " ") {
		t.Errorf("title drawn as %q, want %q", got, want)
	}
}
