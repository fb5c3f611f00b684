package viz

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// niceTicks places about n major ticks at multiples of 1, 2 or 5 × 10^k and labels them with
// as few decimals as the step needs. With labels false the ticks carry no text.
type niceTicks struct {
	n      int
	labels bool
}

func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	step := niceStep((hi - lo) / float64(max(t.n, 2)))
	dec := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var out []plot.Tick
	for v := math.Ceil(lo/step-1e-9) * step; v <= hi+step*1e-9; v += step {
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		tk := plot.Tick{Value: v}
		if t.labels {
			tk.Label = strconv.FormatFloat(v, 'f', dec, 64)
		}
		out = append(out, tk)
	}
	return out
}

// niceStep rounds raw up to 1, 2 or 5 × 10^k.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	switch f := raw / p; {
	case f <= 1:
		return p
	case f <= 2:
		return 2 * p
	case f <= 5:
		return 5 * p
	default:
		return 10 * p
	}
}

// padY widens the y range by 5% on both sides so that lines and bands do not touch the frame.
func padY(p *plot.Plot) {
	r := p.Y.Max - p.Y.Min
	if r <= 0 {
		r = math.Max(math.Abs(p.Y.Max), 1)
	}
	p.Y.Min -= 0.05 * r
	p.Y.Max += 0.05 * r
}
