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
	start := math.Ceil(lo/step-1e-9) * step
	var out []plot.Tick
	// Each tick is computed from its index, and there are at most (hi − lo)/step + 2 of them:
	// where the range is only a few units in the last place wide, adding step to a tick leaves
	// it unchanged, and a loop that added it would not end. Ticks that rounding makes equal
	// are kept once.
	last := int((hi-lo)/step) + 2
	for k := 0; k <= last; k++ {
		v := start + float64(k)*step
		if !(v <= hi+step*1e-9) {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		if len(out) > 0 && !(v > out[len(out)-1].Value) {
			continue
		}
		tk := plot.Tick{Value: v}
		if t.labels {
			tk.Label = strconv.FormatFloat(v, 'f', dec, 64)
		}
		out = append(out, tk)
	}
	if len(out) == 0 {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
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
