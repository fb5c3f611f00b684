// Command cmd is a program, not a package to import.
package main

func main() {}
