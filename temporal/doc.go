// Package temporal runs toolcall's agent loop as a Temporal workflow.
package temporal
