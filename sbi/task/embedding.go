package task

import "github.com/gosbi/gosbi/sbi"

// embedAbove is the data size above which EmbeddingFor summarises the data.
const embedAbove = 100

// EmbeddingFor is the summary network the estimators of the paper notebooks put in front of
// the data of t: data of more than 100 values (tc_lotka_volterra: 2002, spatial_sir: 7500) go
// through an MLP of two SELU layers of 64 units to 10 features, trained with the estimator;
// smaller data is used as it is (nil, no embedding). A nil task has no embedding.
func EmbeddingFor(t Task) sbi.Embedding {
	if t == nil || t.DataDim() <= embedAbove {
		return nil
	}
	return sbi.MLPEmbedding{Hidden: []int{64, 64}, Out: 10, Activation: "selu"}
}
