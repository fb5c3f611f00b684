// Package broken does not compile.
package broken

// F returns a string as an int.
func F() int { return "not an int" }
