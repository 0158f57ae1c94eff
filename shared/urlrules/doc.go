// Package urlrules reads Snap!-style Domain Rules and Website Rules scripts and applies
// them to URLs: which registered domain and website a URL belongs to, the options its
// flag() variables give, and its canonical URL.
//
// A script is compiled once with Compile, which reports every syntax, rule and variable
// error with its file, line and column (an ErrorList of *Error). The compiled Rules then
// match URLs with Rules.Match; Host gives a URL's host and registered domain as the rules
// see them (Unicode and ASCII spellings of a host name alike, UTS #46).
//
// Patterns are Go RE2 regular expressions: the lookahead, lookbehind and backreferences of
// the document's Perl examples are refused with an error that says so. The grammar and its
// examples are those of the Snap! URL rules document; webkeep follows its rulings where the
// document is silent.
package urlrules
