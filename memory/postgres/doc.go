// Package postgres keeps agent sessions in PostgreSQL: a [Store] is the agentkit.Memory of
// Agent.RunSession for a fleet of replicas.
package postgres
