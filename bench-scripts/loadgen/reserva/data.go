package main

// The data generator: one fixed-seed generator for every engine, so PostgreSQL, MariaDB and MySQL
// hold the same rows. Shape as upstream's PostgreSQL script (50 organizations, one user each,
// accounts spread over all 50 organizations with CVV 1..999, two permissions, one token per user
// granted both permissions with the same hash, card i belongs to account i). Upstream's MySQL
// script put every account in organizations 1..10 and gave it another balance; we do not
// reproduce that (it is listed on the study page as an asymmetry).

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
)

const (
	numOrganizations = 50
	numUsers         = 50
	initialBalance   = int64(50_000_000)
	// generatorVersion changes whenever the generated rows change; prepare stores it with the data.
	generatorVersion = 1
)

var permissionNames = []string{"transfer_requests:create", "transfers:create"}

type Account struct {
	ID      int64 // card ID is the same number
	OrgID   int64
	Balance int64
	CVV     int64
}

type Token struct {
	Hash   string
	UserID int64
}

// GenerateAccounts calls fn for accounts 1..n in order; the same (seed, n) gives the same rows.
func GenerateAccounts(seed uint64, n int64, fn func(Account) error) error {
	r := rand.New(rand.NewPCG(seed, 1))
	for id := int64(1); id <= n; id++ {
		a := Account{ID: id, OrgID: 1 + r.Int64N(numOrganizations), Balance: initialBalance, CVV: 1 + r.Int64N(999)}
		if err := fn(a); err != nil {
			return err
		}
	}
	return nil
}

// GenerateTokens returns one token per user (user i: organization i), a version-4-shaped UUID
// drawn from the seed (upstream used gen_random_uuid()/UUID(), different on every load).
func GenerateTokens(seed uint64) []Token {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]Token, numUsers)
	for i := range out {
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], r.Uint64())
		binary.BigEndian.PutUint64(b[8:], r.Uint64())
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		out[i] = Token{UserID: int64(i + 1), Hash: fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])}
	}
	return out
}

// Fingerprint is a SHA-256 over every generated row: equal fingerprints mean equal data.
func Fingerprint(seed uint64, n int64) string {
	h := sha256.New()
	var buf [32]byte
	_ = GenerateAccounts(seed, n, func(a Account) error {
		binary.BigEndian.PutUint64(buf[0:], uint64(a.ID))
		binary.BigEndian.PutUint64(buf[8:], uint64(a.OrgID))
		binary.BigEndian.PutUint64(buf[16:], uint64(a.Balance))
		binary.BigEndian.PutUint64(buf[24:], uint64(a.CVV))
		h.Write(buf[:])
		return nil
	})
	for _, t := range GenerateTokens(seed) {
		fmt.Fprintf(h, "%d:%s;", t.UserID, t.Hash)
	}
	fmt.Fprintf(h, "v%d", generatorVersion)
	return hex.EncodeToString(h.Sum(nil))
}
