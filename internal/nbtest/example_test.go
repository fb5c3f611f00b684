package nbtest_test

import (
	"fmt"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// ParseNotebook upgrades a notebook to nbformat 4.5: every cell gets an id.
func ExampleParseNotebook() {
	nb, err := nbtest.ParseNotebook([]byte(`{"nbformat": 4, "nbformat_minor": 2, "metadata": {},
		"cells": [{"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": ["quick := true\n"], "outputs": [], "execution_count": null}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := nb.Cells[0]
	fmt.Println(nb.NBFormat, nb.NBFormatMinor, c.ID != "", c.HasTag(nbtest.ParametersTag), c.Source)
	// Output: 4 5 true true quick := true
}

func ExampleMarkdown() {
	fmt.Print(nbtest.Markdown("## Coverage\nThe **expected** coverage of `NPE`."))
	// Output:
	// <h2>Coverage</h2>
	// <p>The <strong>expected</strong> coverage of <code>NPE</code>.</p>
}
