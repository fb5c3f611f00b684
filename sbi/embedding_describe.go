package sbi

import (
	"fmt"
	"html"
	"reflect"
	"strings"
)

// EmbeddingSummary describes an embedding network as it is built for observations of In
// values: its layers in order, with the shape of what each passes on and its weights, like
// PyTorch's torchinfo summary. DescribeEmbedding makes one; it displays as a table.
type EmbeddingSummary struct {
	Kind    string // the registered kind ("cnn1d", …), or the Go type of an unregistered embedding
	In, Out int    // values of an observation, summaries
	Weights int    // trainable values of all layers
	Layers  []EmbeddingLayer
}

// EmbeddingLayer is one layer of an EmbeddingSummary.
type EmbeddingLayer struct {
	Layer   string // what it is, e.g. "Conv1D 2→6, kernel 5, padding 2, ReLU"
	Output  string // the shape of its output for one observation, e.g. "100 positions × 6 channels"
	Weights int
}

// describer is implemented by the embeddings of this package: the layers Build creates for
// observations of in values, and the summary size, or Build's error.
type describer interface {
	layers(in int) (layers []EmbeddingLayer, out int, err error)
}

// DescribeEmbedding returns the layers that e builds for observations of in values. It
// returns Build's error when in does not fit e, and an error for an embedding of another
// package (it cannot see inside it).
func DescribeEmbedding(e Embedding, in int) (*EmbeddingSummary, error) {
	d, ok := e.(describer)
	if !ok {
		return nil, fmt.Errorf("describe embedding: %T is not one of package sbi's embeddings; its layers are unknown", e)
	}
	ls, out, err := d.layers(in)
	if err != nil {
		return nil, err
	}
	s := &EmbeddingSummary{Kind: fmt.Sprintf("%T", e), In: in, Out: out, Layers: ls}
	if entry, err := embeddingEntryOf(e); err == nil && entry != nil {
		s.Kind = entry.Kind
	}
	for _, l := range ls {
		s.Weights = satAdd(s.Weights, l.Weights)
	}
	return s, nil
}

// MustDescribeEmbedding is DescribeEmbedding for notebook cells: it panics with the error.
func MustDescribeEmbedding(e Embedding, in int) *EmbeddingSummary {
	s, err := DescribeEmbedding(e, in)
	if err != nil {
		panic(err)
	}
	return s
}

// sizeOf sums the weights of the layers of d for in values (SavableEmbedding.Size).
func sizeOf(d describer, in int) (out, weights int, err error) {
	ls, out, err := d.layers(in)
	if err != nil {
		return 0, 0, err
	}
	for _, l := range ls {
		weights = satAdd(weights, l.Weights)
	}
	return out, weights, nil
}

// String is the summary as a text table.
func (s *EmbeddingSummary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s embedding: %d values → %d summaries, %d weights\n", s.Kind, s.In, s.Out, s.Weights)
	w := [2]int{len("layer"), len("output")}
	for _, l := range s.Layers {
		w[0], w[1] = max(w[0], len([]rune(l.Layer))), max(w[1], len([]rune(l.Output)))
	}
	row := func(a, o, n string) {
		fmt.Fprintf(&b, "  %s%s  %s%s  %8s\n", a, strings.Repeat(" ", w[0]-len([]rune(a))), o, strings.Repeat(" ", w[1]-len([]rune(o))), n)
	}
	row("layer", "output", "weights")
	for _, l := range s.Layers {
		row(l.Layer, l.Output, fmt.Sprint(l.Weights))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// MIMEBundle shows the summary as an HTML table, and as text.
func (s *EmbeddingSummary) MIMEBundle() map[string]any {
	var b strings.Builder
	fmt.Fprintf(&b, "<div><b>%s embedding</b>: %d values → %d summaries, %d weights<table><tr><th>layer</th><th>output</th><th>weights</th></tr>",
		html.EscapeString(s.Kind), s.In, s.Out, s.Weights)
	for _, l := range s.Layers {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%d</td></tr>", html.EscapeString(l.Layer), html.EscapeString(l.Output), l.Weights)
	}
	b.WriteString("</table></div>")
	return map[string]any{"text/plain": s.String(), "text/html": b.String()}
}

// denseLayers describes fully connected layers of the given widths, act between them and
// after the last unless last is false; the first width is the input.
func denseLayers(sizes []int, act Activation, last bool) []EmbeddingLayer {
	var ls []EmbeddingLayer
	for i := 1; i < len(sizes); i++ {
		name := fmt.Sprintf("Linear %d→%d", sizes[i-1], sizes[i])
		if i+1 < len(sizes) || last {
			name += ", " + actName(act)
		}
		ls = append(ls, EmbeddingLayer{Layer: name, Output: fmt.Sprint(sizes[i]), Weights: satAdd(satMul(sizes[i-1], sizes[i]), sizes[i])})
	}
	return ls
}

func actName(a Activation) string {
	if a == "" {
		return string(ReLU)
	}
	return string(a)
}

// layers describes the MLP embedding (EmbeddingSummary).
func (e MLPEmbedding) layers(in int) ([]EmbeddingLayer, int, error) {
	e = e.withDefaults()
	if _, err := e.Activation.parse(); err != nil {
		return nil, 0, fmt.Errorf("embedding: %w", err)
	}
	sizes := append(append([]int{in}, e.Hidden...), e.Out)
	if _, err := mlpWeights(sizes); err != nil || e.Out < 1 {
		return nil, 0, fmt.Errorf("embedding: layer widths %v, expected every width ≥ 1", sizes)
	}
	return denseLayers(sizes, e.Activation, false), e.Out, nil
}

// kindName is the registered kind of e's type, for messages ("" when unregistered).
func kindName(e Embedding) string {
	t := reflect.TypeOf(e)
	if t == nil {
		return ""
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	embeddingKinds.RLock()
	defer embeddingKinds.RUnlock()
	return embeddingKinds.byType[t]
}
