package main

import (
	"fmt"
	"math/rand/v2"

	"example.com/sim"
)

func main() {
	rng := rand.New(rand.NewPCG(1, 2))
	x := sim.Simulate(rng, []float64{0.1, -0.2})
	fmt.Println(len(x), sim.Scale(2))
}
