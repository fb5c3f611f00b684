package sbi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestNPECollapsedDraws forces one column of an NPE's draws to one value (the last layer of
// its single MADE set to shift and scale that column by 1e30, so every base draw maps to the
// same point) and samples the posterior: where that column of θ varied in training the draws
// collapsed, and sampling must return an error wrapping ErrDiverged that says so and what to
// do, for the trained NPE and for one saved and loaded; before, NPE's own sampling returned
// the collapsed draws without a word. A column constant in training (a point mass) must still
// sample, in memory and from a file. A file of format 4, which does not record the constant
// columns, must not misfire: it is checked for non-finite draws only.
func TestNPECollapsedDraws(t *testing.T) {
	prior, theta, x := gaussianPairs(rand.New(rand.NewPCG(21, 22)), 200)
	constant := mat.DenseCopyOf(theta) // θ column 1 held at 3
	for i := range 200 {
		constant.Set(i, 1, 3)
	}
	for _, c := range []struct {
		name   string
		theta  *mat.Dense
		via    string  // "memory", "file" (saved and loaded) or "format 4" (the file made format 4)
		column int     // the column forced
		value  float64 // the shift and scale forced on it: 1e30 collapses, NaN is not finite
		want   string  // "collapsed", "non-finite" or "" (draws returned)
	}{
		{"θ varies, column 0 collapsed", theta, "memory", 0, 1e30, "collapsed"},
		{"θ varies, column 0 collapsed", theta, "file", 0, 1e30, "collapsed"},
		{"θ varies, column 1 collapsed", theta, "memory", 1, 1e30, "collapsed"},
		{"θ varies, column 1 collapsed", theta, "file", 1, 1e30, "collapsed"},
		{"θ column 1 constant, column 1 collapsed", constant, "memory", 1, 1e30, ""},
		{"θ column 1 constant, column 1 collapsed", constant, "file", 1, 1e30, ""},
		{"θ column 1 constant, column 0 collapsed", constant, "memory", 0, 1e30, "collapsed"},
		{"θ column 1 constant, column 0 collapsed", constant, "file", 0, 1e30, "collapsed"},
		{"θ varies, column 0 collapsed", theta, "format 4", 0, 1e30, ""},
		{"θ column 1 constant, column 1 collapsed", constant, "format 4", 1, 1e30, ""},
		{"θ varies, column 0 not finite", theta, "memory", 0, math.NaN(), "non-finite"},
		{"θ varies, column 0 not finite", theta, "format 4", 0, math.NaN(), "non-finite"},
	} {
		t.Run(c.name+" ("+c.via+")", func(t *testing.T) {
			e := NewNPE(prior, NPEConfig{Hidden: 8, Transforms: 1})
			if _, err := e.Train(c.theta, x, TrainConfig{Epochs: 2, Seed: 1}); err != nil {
				t.Fatal(err)
			}
			e = reloadNPE(t, e, c.via)
			forceColumn(t, e, c.column, c.value)
			s, err := e.PosteriorAt(x.RawRowView(0)).SampleContext(t.Context(), rand.New(rand.NewPCG(1, 2)), 50)
			switch c.want {
			case "":
				if err != nil {
					t.Fatalf("error %v, expected draws", err)
				}
				if v := s.At(0, c.column); s.At(1, c.column) != v {
					t.Fatalf("the draws of column %d differ (%v, %v): the test did not force them to one value", c.column, v, s.At(1, c.column))
				}
			case "collapsed":
				if err == nil || !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "collapsed") ||
					!strings.Contains(err.Error(), fmt.Sprintf("θ column %d", c.column)) || !strings.Contains(err.Error(), "smaller learning rate") {
					t.Errorf("error %v, expected one wrapping ErrDiverged saying the draws of θ column %d collapsed and what to do", err, c.column)
				}
			case "non-finite":
				if err == nil || !errors.Is(err, ErrDiverged) || !strings.Contains(err.Error(), "non-finite") {
					t.Errorf("error %v, expected one wrapping ErrDiverged saying the draws are not finite", err)
				}
			}
		})
	}
}

// reloadNPE returns e itself ("memory"), or e saved and loaded ("file"), or e saved, made a
// file of format 4 (the version set to 4 and "constant_theta" removed) and loaded.
func reloadNPE(t *testing.T, e *NPE, via string) *NPE {
	t.Helper()
	if via == "memory" {
		return e
	}
	var buf bytes.Buffer
	if err := e.Save(&buf); err != nil {
		t.Fatal(err)
	}
	file := buf.Bytes()
	if via == "format 4" {
		binary.LittleEndian.PutUint32(file[8:], 4)
		file = forge(t, file, func(h map[string]any) { delete(h, "constant_theta") })
	}
	back, err := LoadNPE(bytes.NewReader(file), nil)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// forceColumn sets the last layer of the NPE's single MADE so that the affine transform of
// θ column j has shift and scale parameters v and no other its shift 0 and scale parameter
// 0: every base draw of column j maps to (z − v)/v, which is one value for v = 1e30.
func forceColumn(t *testing.T, e *NPE, j int, v float64) {
	t.Helper()
	found := false
	for _, p := range e.fl.Params() {
		if !strings.HasPrefix(p.Name, "flow.0.made.2.") {
			continue
		}
		found = true
		for i := range p.Data {
			p.Data[i] = 0
		}
		if strings.HasSuffix(p.Name, ".b") {
			p.Data[2*j], p.Data[2*j+1] = v, v // [shift, scale parameter] of feature j
		}
	}
	if !found {
		t.Fatal("the flow has no layer flow.0.made.2: the test's picture of the flow is out of date")
	}
}
