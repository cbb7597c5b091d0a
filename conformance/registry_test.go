package conformance

import "github.com/karpsim/karpsim/conformance/internal/casebook"

// A conformanceCase is the translation of one or more upstream specs (see
// casebook.Case).
type conformanceCase = casebook.Case

// T is what a case reports to (casebook.T).
type T = casebook.T

// book holds every case of this package by "group/slug".
var book casebook.Book

// register adds a group's cases; it is called from package-level var
// declarations (var _ = register(...)) so that each file holds its own.
func register(group string, cases ...conformanceCase) bool { return book.Register(group, cases...) }
