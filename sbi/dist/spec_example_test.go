package dist_test

import (
	"encoding/json"
	"fmt"

	"github.com/gosbi/gosbi/sbi/dist"
)

// A prior is stored as its Spec, in JSON, and built again from it; Diff says where two Specs
// differ.
func ExampleSpecOf() {
	prior := dist.NewIndependent(dist.NewNormal([]float64{0}, []float64{2}), dist.NewExp(dist.NewUniformCube(-4, 1, 1)))
	s, err := dist.SpecOf(prior)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := json.Marshal(s)
	fmt.Println(string(b))

	var back dist.Spec
	_ = json.Unmarshal(b, &back)
	rebuilt, err := dist.FromSpec(back)
	fmt.Println(rebuilt.Dim(), err)

	other, _ := dist.SpecOf(dist.NewIndependent(dist.NewNormal([]float64{0}, []float64{2.5}), dist.NewExp(dist.NewUniformCube(-4, 1, 1))))
	d, differ := s.Diff(other)
	fmt.Println(differ, d.Path, d.A, d.B)
	// Output:
	// {"kind":"independent","parts":[{"kind":"normal","params":{"mean":[0],"std":[2]}},{"kind":"exp","parts":[{"kind":"box_uniform","params":{"high":[1],"low":[-4]}}]}]}
	// 2 <nil>
	// true parts[0].std[0] 2 2.5
}
