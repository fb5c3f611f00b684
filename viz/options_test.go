package viz

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestSampleFigureBadOptions: CornerWith and Marginals refuse every option that does not fit
// their samples with the panic of their options, naming the option and what is expected,
// before anything is drawn, as they refuse Bins over MaxHistogramBins. A non-finite true value
// was a nil-pointer panic; axis limits the wrong way round or not finite, contour levels
// outside [0, 1] and a non-finite smoothing drew an empty or broken figure without a word.
func TestSampleFigureBadOptions(t *testing.T) {
	s := correlated(1, 50, []float64{0, 1}, 1, 0.5)
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name string
		call func()
		want string
	}{
		{"Corner NaN truth", func() { CornerWith(CornerConfig{Truth: []float64{0, nan}, Points: 10}, s) },
			"viz: Corner: Truth[1] = NaN, expected a finite value"},
		{"Corner infinite truth", func() { CornerWith(CornerConfig{Truth: []float64{inf, 0}, Points: 10}, s) },
			"viz: Corner: Truth[0] = +Inf, expected a finite value"},
		{"Corner lower above upper", func() {
			CornerWith(CornerConfig{Lower: []float64{-1, 2}, Upper: []float64{1, 1}, Points: 10}, s)
		}, "viz: Corner: the axis of parameter 1 runs from 2 to 1"},
		{"Corner lower above the samples' upper end", func() { CornerWith(CornerConfig{Lower: []float64{0, 100}, Points: 10}, s) },
			"viz: Corner: the axis of parameter 1 runs from 100 to"},
		{"Corner infinite limit", func() {
			CornerWith(CornerConfig{Lower: []float64{-1, -1}, Upper: []float64{inf, 1}, Points: 10}, s)
		}, "viz: Corner: Upper[0] = +Inf, expected a finite axis limit"},
		{"Corner NaN limit", func() { CornerWith(CornerConfig{Lower: []float64{nan, -1}, Points: 10}, s) },
			"viz: Corner: Lower[0] = NaN, expected a finite axis limit"},
		{"Corner level in percent", func() { CornerWith(CornerConfig{Levels: []float64{0.68, 95}, Points: 10}, s) },
			"viz: Corner: Levels[1] = 95, expected an HPD mass in [0, 1] (0.95, not 95)"},
		{"Corner NaN smoothing", func() { CornerWith(CornerConfig{Smooth: nan, Points: 10}, s) },
			"viz: Corner: Smooth = NaN, expected a finite width in cells"},
		{"Marginals NaN truth", func() { Marginals(MarginalsConfig{Truth: []float64{nan, 0}}, s) },
			"viz: Marginals: Truth[0] = NaN, expected a finite value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if v := fmt.Sprint(recover()); !strings.HasPrefix(v, c.want) {
					t.Errorf("recovered %q, want the panic of the options %q…", v, c.want)
				}
			}()
			c.call()
		})
	}
	// the options at their edges still draw
	noPanic(t, "edges", func() {
		for _, p := range []*Plot{
			CornerWith(CornerConfig{Truth: []float64{0, 1}, Lower: []float64{-3, -2}, Upper: []float64{3, 4}, Levels: []float64{0, 1}, Smooth: -1, Points: 10}, s),
			Marginals(MarginalsConfig{Truth: []float64{0, 1}}, s),
		} {
			if _, err := p.PNG(); err != nil {
				t.Error(err)
			}
		}
	})
}
