// Package redis keeps agent sessions in Redis: a [Store] is the agentkit.Memory of
// Agent.RunSession for a fleet whose replicas share one Redis.
package redis
