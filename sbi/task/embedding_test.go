package task

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/gosbi/gosbi/sbi"
)

func TestEmbeddingFor(t *testing.T) {
	mlp := sbi.MLPEmbedding{Hidden: []int{64, 64}, Out: 10, Activation: "selu"}
	for _, c := range []struct {
		task Task
		want sbi.Embedding
	}{
		{TCSLCP(), nil},          // 8 values
		{Weinberg(), nil},        // 20 values
		{TCLotkaVolterra(), mlp}, // 2002 values
		{SpatialSIR(), mlp},      // 7500 values
		{nil, nil},
	} {
		name := "nil"
		if c.task != nil {
			name = c.task.Name()
		}
		got := EmbeddingFor(c.task)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("EmbeddingFor(%s) = %#v, want %#v", name, got, c.want)
			continue
		}
		if got == nil {
			continue
		}
		net, err := got.Build(rand.New(rand.NewPCG(1, 2)), c.task.DataDim())
		if err != nil {
			t.Fatalf("EmbeddingFor(%s).Build: %v", name, err)
		}
		if net.Out() != 10 {
			t.Errorf("EmbeddingFor(%s) summarises %d values into %d features, want 10", name, c.task.DataDim(), net.Out())
		}
	}
}
