package postgres_test

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/agentkit/agentkittest"
	"github.com/toolcall/toolcall/memory"
	"github.com/toolcall/toolcall/memory/postgres"
)

// A fleet's replica: one pool, one Store, used as the agent's memory, its ledger of resumed
// pauses and Fold's summary store. The Example needs a PostgreSQL server (DATABASE_URL), so
// it is compiled, not run; the package's tests run the same calls against a server they
// start.
func Example() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	store, err := postgres.Open(ctx, pool, &postgres.Options{Schema: "agents"})
	if err != nil {
		fmt.Println(err)
		return
	}
	model := agentkittest.New(nil, agentkittest.Text("上海多云，22℃。")) // a scripted model; yours is an *openai.Client
	agent := agentkit.New(model, &agentkit.Options{
		Memory:  store,
		Ledger:  store,
		Context: memory.Window(memory.WindowOptions{MaxTurns: 20}),
	})
	res, err := agent.RunSession(ctx, "user-42", "上海呢？")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Output)
}
