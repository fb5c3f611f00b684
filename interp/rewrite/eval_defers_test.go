package rewrite

import "testing"

// TestEvalDefers checks which defer statements eval-defers runs in a block that evaluates
// their operands into temporaries first, and which it leaves as written.
func TestEvalDefers(t *testing.T) {
	env := Env{
		IsPackage: func(name string) bool { return name == "fmt" || name == "sync" },
		IsVar:     func(name string) bool { return name == "g" },
		IsConst:   func(name string) bool { return name == "K" },
	}
	for _, c := range []struct{ in, want string }{
		{"func f(x int) {\n\tdefer show(x)\n}", "func f(x int) {\n\t{ _gosbiD1a0 := x; defer show(_gosbiD1a0) }\n}"},
		{"func f() {\n\tfor i := 0; i < 3; i++ {\n\t\tdefer show(i+1)\n\t}\n}", "func f() {\n\tfor i := 0; i < 3; i++ {\n\t\t{ _gosbiD1a0 := i+1; defer show(_gosbiD1a0) }\n\t}\n}"},
		{"func f(s S, xs []int, i int) {\n\tdefer show(s.x, xs[i], next())\n}", "func f(s S, xs []int, i int) {\n\t{ _gosbiD1a0 := s.x; _gosbiD1a1 := xs[i]; _gosbiD1a2 := next(); defer show(_gosbiD1a0, _gosbiD1a1, _gosbiD1a2) }\n}"},
		{"func f(x int) {\n\tdefer fmt.Println(\"a\", x)\n}", "func f(x int) {\n\t{ _gosbiD1a1 := x; defer fmt.Println(\"a\", _gosbiD1a1) }\n}"},
		{"func f(xs []int) {\n\tdefer show(xs...)\n}", "func f(xs []int) {\n\t{ _gosbiD1a0 := xs; defer show(_gosbiD1a0...) }\n}"},
		{"func f(fn func()) {\n\tdefer fn()\n}", "func f(fn func()) {\n\t{ _gosbiD1f := fn; defer _gosbiD1f() }\n}"},
		{"func f() {\n\tdefer g(1)\n}", "func f() {\n\t{ _gosbiD1f := g; defer _gosbiD1f(1) }\n}"},
		{"func f(x int) {\n\tdefer func(v int) { show(v) }(x)\n}", "func f(x int) {\n\t{ _gosbiD1a0 := x; defer func(v int) { show(v) }(_gosbiD1a0) }\n}"},
		{"func f(m map[int]int, k int, x int) {\n\tdefer delete(m, k)\n\tdefer println(x)\n}", "func f(m map[int]int, k int, x int) {\n\t{ _gosbiD1a0 := m; _gosbiD1a1 := k; defer delete(_gosbiD1a0, _gosbiD1a1) }\n\t{ _gosbiD2a0 := x; defer println(_gosbiD2a0) }\n}"},
		{"func f(c C, x int) {\n\tdefer c.Add(x)\n}", "func f(c C, x int) {\n\t{ _gosbiD1a0 := x; defer c.Add(_gosbiD1a0) }\n}"},
		{"func f(x int) {\n\tdefer takesFloat(1, K, x)\n}", "func f(x int) {\n\t{ _gosbiD1a2 := x; defer takesFloat(1, K, _gosbiD1a2) }\n}"},
		{"x := 1\nfunc() {\n\tdefer show(x)\n}()", "x := 1\nfunc() {\n\t{ _gosbiD1a0 := x; defer show(_gosbiD1a0) }\n}()"},
		// left as written
		{"func f(mu *sync.Mutex, wg *sync.WaitGroup, ch chan int) {\n\tdefer mu.Unlock()\n\tdefer wg.Done()\n\tdefer recover()\n}", ""},
		{"func f() {\n\tdefer func() {\n\t\tif r := recover(); r != nil {\n\t\t\tshow(r)\n\t\t}\n\t}()\n}", ""},
		{"func f() {\n\tdefer takesFloat(1)\n\tdefer show(K, nil, -2, K*2)\n}", ""},
		{"func two() (int, int) { return 1, 2 }\nfunc f() {\n\tdefer show2(two())\n}", ""},
		{"func f(x int) {\n\tdefer get().Add(x)\n}", ""},
		{"defer show(g)", ""},
	} {
		checkRewrite(t, evalDefers, env, c.in, c.want)
	}
}

func TestCanaryEvalDefers(t *testing.T) {
	const decl = "var got int\nfunc rec(i int) { got = got*10 + i }\nfunc run() {\n\tfor i := 0; i < 3; i++ {\n\t\tdefer rec(i + 1)\n\t}\n}"
	const fill = "func fill() int {\n\tgot = 0\n\trun()\n\treturn got\n}"
	got, err := evalInt(t, newInterp(t), decl, fill, "fill()")
	if err == nil && got == 321 {
		t.Errorf("yaegi now evaluates a deferred call's arguments at the defer: drop pass %s (%s)", evalDefers.Name, evalDefers.Issue)
	} else if err != nil || got != 333 {
		t.Logf("yaegi fails differently now: %d, %v", got, err)
	}
	env := Env{}
	env.types = func() *typeTable { return newTypeTable(env, nil) }
	got, err = evalInt(t, newInterp(t), rewritten(t, evalDefers, env, Decl, decl), fill, "fill()")
	if err != nil || got != 321 {
		t.Errorf("rewritten: fill() = %d, %v; want 321", got, err)
	}
}
