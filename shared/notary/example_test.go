package notary_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/webkeep/webkeep/shared/mergedindex"
	"github.com/webkeep/webkeep/shared/notary"
)

// A bundle is logged, and checked later by someone holding the verifier key, the
// signed head and the proof, and the bundle's bytes.
func Example() {
	ctx := context.Background()
	skey, vkey, _ := notary.GenerateKey("archive.example/notary")
	log, _ := notary.New((&mergedindex.MemStores{}).Open(notary.StoreName), skey)

	bundle := "the bundle's bytes"
	leaf, _ := notary.BundleLeaf(strings.NewReader(bundle), "site.zip", "20240901T120000.000000000Z-0123456789abcdef")
	log.Append(ctx, []byte("webkeep-bundle other.zip u1 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 4"))
	index, tree, _ := log.Append(ctx, leaf.Bytes())
	proof, _ := log.InclusionProof(ctx, index, tree.N)
	msg, _ := log.SignHead(tree)

	// Offline, with vkey:
	head, err := notary.OpenHead(msg, vkey)
	fmt.Println(head.Origin, head.Tree.N, err)
	fmt.Println(leaf)
	fmt.Println(notary.VerifyInclusion(head, leaf.Bytes(), index, proof))
	changed, _ := notary.BundleLeaf(strings.NewReader("the bundle's bytes, changed"), "site.zip", leaf.Upload)
	fmt.Println(notary.VerifyInclusion(head, changed.Bytes(), index, proof) != nil)
	// Output:
	// archive.example/notary 2 <nil>
	// webkeep-bundle site.zip 20240901T120000.000000000Z-0123456789abcdef 5347b7bc84f185e999f04090775d3225a6bfc7bd53e76a0c6e006f820ac02c83 18
	// <nil>
	// true
}
