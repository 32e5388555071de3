// Package boltfile reads bbolt's on-disk format directly, for the two
// things bbolt itself cannot do safely: checking a possibly damaged file
// before bbolt maps it (Check), and salvaging the intact records of a file
// bbolt refuses to read (Salvage). It knows the page layout of bbolt 1.x
// (meta pages, branch and leaf pages, inline buckets, the freelist) and the
// journal's key scheme (8-byte big-endian seq), nothing else; it is not
// API: package journal is.
package boltfile
