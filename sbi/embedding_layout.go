package sbi

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/gosbi/gosbi/sbi/internal/colstat"
)

// InputLayout is an optional interface of an Embedding whose input is a structure rather than
// a vector of separate features: the positions of a series, the pixels of an image, the
// trials of a set. An estimator whose embedding implements it standardizes x by groups of
// columns that share one scale, leaves out the padding of observations that hold less data
// than the width of x, and refuses observations the embedding cannot read.
//
// Without it every column of x is standardized on its own (sbi's z_score_x = "independent"),
// which would give each position of a series, and each slot of a set of trials, its own
// scale: a convolution would no longer see the same pattern alike at every position, and a
// set no longer be invariant under a permutation of its trials.
type InputLayout interface {
	Embedding
	// InputGroups returns, for observations of in values, the group of each column: the
	// columns of a group are standardized with one mean and one standard deviation, learned
	// from all their values in the training set (a channel of a series, a coordinate of the
	// trials of a set), and a column of group −1 is passed on as it is (a count). Groups are
	// numbered from 0. It returns Build's error when in does not fit the embedding.
	InputGroups(in int) ([]int, error)
	// InputUsed returns how many leading values of the observation row (in raw units) hold
	// data; the values after them are padding, left out of the standardization and ignored by
	// the network. It returns an error saying what is wrong when the row is not an
	// observation the embedding can read (a count of trials out of range).
	InputUsed(row []float64) (int, error)
}

// layoutOf returns the embedding's InputLayout, nil for an embedding without one.
func layoutOf(e Embedding) InputLayout {
	l, _ := e.(InputLayout)
	return l
}

// groupScaler learns a standardization of x by the groups of an InputLayout in one pass over
// the rows (a colstat.Accumulator with one column per group), counting only the values each
// row uses.
type groupScaler struct {
	layout InputLayout
	groups []int
	ng     int
	acc    colstat.Accumulator
}

func newGroupScaler(l InputLayout, in int) (*groupScaler, error) {
	groups, err := l.InputGroups(in)
	if err != nil {
		return nil, err
	}
	if len(groups) != in {
		return nil, fmt.Errorf("embedding: InputGroups(%d) gave %d groups, expected one per column", in, len(groups))
	}
	ng := 0
	for j, g := range groups {
		if g < -1 {
			return nil, fmt.Errorf("embedding: InputGroups: column %d in group %d, expected ≥ −1", j, g)
		}
		ng = max(ng, g+1)
	}
	return &groupScaler{layout: l, groups: groups, ng: ng}, nil
}

// add accumulates the used values of row, or returns the layout's error for it.
func (s *groupScaler) add(row []float64) error {
	used, err := s.layout.InputUsed(row)
	if err != nil {
		return err
	}
	for j, v := range row[:min(max(used, 0), len(row))] {
		if g := s.groups[j]; g >= 0 {
			if err := s.acc.AddAt(g, v); err != nil {
				return fmt.Errorf("column %d (group %d): %w", j, g, err)
			}
		}
	}
	return nil
}

// zscore returns the per-column standardization: each column gets its group's mean and sample
// standard deviation (the rule of fitZScore, at any finite scale), a column of group −1 mean 0
// and deviation 1. A group whose spread exceeds float64 is an error naming it.
func (s *groupScaler) zscore() (zscore, error) {
	cols, err := s.acc.Columns(s.ng, 1)
	if err != nil {
		return zscore{}, fmt.Errorf("the groups of the embedding's input layout: %w", err)
	}
	z := zscore{Mean: make([]float64, len(s.groups)), Std: make([]float64, len(s.groups))}
	for j, g := range s.groups {
		z.Std[j] = 1
		if g < 0 {
			continue
		}
		z.Mean[j], z.Std[j] = cols[g].Mean, cols[g].Scale()
	}
	return z, nil
}

// fitXScore learns the standardization of the rows idx of x for the embedding e: by the
// groups of its InputLayout where it has one, else column by column.
func fitXScore(e Embedding, x *mat.Dense, idx []int) (zscore, error) {
	l := layoutOf(e)
	if l == nil {
		return fitZScore("x", x, idx)
	}
	_, c := x.Dims()
	s, err := newGroupScaler(l, c)
	if err != nil {
		return zscore{}, err
	}
	for _, i := range idx {
		if err := s.add(x.RawRowView(i)); err != nil {
			return zscore{}, fmt.Errorf("row %d of x: %w", i, err)
		}
	}
	z, err := s.zscore()
	if err != nil {
		return zscore{}, fmt.Errorf("standardizing x: %w", err)
	}
	return z, nil
}

// checkInputRows returns an error naming the first row of x that the layout of e refuses (nil
// without a layout), or first the layout's error for the width of x: a configuration that
// cannot read x (MaxTrials −1) would misread its rows, and the error must say what to change.
func checkInputRows(e Embedding, x *mat.Dense) error {
	l := layoutOf(e)
	if l == nil {
		return nil
	}
	n, c := x.Dims()
	if _, err := l.InputGroups(c); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if row := x.RawRowView(i); finite(row) {
			if _, err := l.InputUsed(row); err != nil {
				return fmt.Errorf("row %d of x: %w", i, err)
			}
		}
	}
	return nil
}

// readable reports whether the embedding of e can read the observation row: always without
// a layout.
func readable(e Embedding, row []float64) error {
	if l := layoutOf(e); l != nil {
		if _, err := l.InputUsed(row); err != nil {
			return err
		}
	}
	return nil
}

// paddingErr returns an error when row holds NaN or ±Inf only in the padding after the values
// its layout uses (nil without a layout, for a finite row, or for one the layout cannot read
// or whose data are not finite: a failed simulation). NaN there is the padding of sets of
// varying size elsewhere (sbi pads with NaN); here the count marks the trials present and
// the padding must be finite, else such a row would be dropped as a failed simulation, and a
// training set lose every set shorter than the widest.
func paddingErr(l InputLayout, row []float64) error {
	if l == nil || finite(row) {
		return nil
	}
	used, err := l.InputUsed(row)
	if err != nil || used >= len(row) || !finite(row[:max(used, 0)]) {
		return nil
	}
	return fmt.Errorf("embedding: the padding after the %d values the observation uses holds NaN or ±Inf, expected finite padding: the count of trials (its first value) marks the trials present; pad with zeros, as DeepSetEmbedding.Pack and WithCounts do", used)
}

// checkPadding returns the layout's error for the width of x, or else an error naming the
// first row of x (nil: none) whose padding paddingErr refuses, for the layout of the embedding
// e. The width comes first: rows of another layout (sets padded with NaN and no count, as sbi
// pads them) would otherwise be dropped as failed simulations, and the error be that too few
// pairs are left.
func checkPadding(e Embedding, x *mat.Dense) error {
	l := layoutOf(e)
	if l == nil || x == nil || x.IsEmpty() {
		return nil
	}
	n, c := x.Dims()
	if _, err := l.InputGroups(c); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := paddingErr(l, x.RawRowView(i)); err != nil {
			return fmt.Errorf("row %d of x: %w", i, err)
		}
	}
	return nil
}

// inputShaper is implemented by the structured embeddings of this package: inputShape says
// what an observation of in values is to the embedding ("a series of 50 positions × 2
// channels, channels-last"), for the errors about an observation of another width; "" when
// in does not fit it.
type inputShaper interface {
	inputShape(in int) string
}

// expectedX says what the estimator reads: xDim values, and what they are to its embedding
// where it reads a structure.
func (c *estimator) expectedX() string {
	if sh, ok := c.layout.(inputShaper); ok {
		if d := sh.inputShape(c.xDim); d != "" {
			return fmt.Sprintf("%d (%s)", c.xDim, d)
		}
	}
	return fmt.Sprint(c.xDim)
}
