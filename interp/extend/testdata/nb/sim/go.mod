module example.com/sim

go 1.22
