package redis_test

import (
	"context"
	"fmt"
	"log"
	"os"

	goredis "github.com/redis/go-redis/v9"
	openai "github.com/sashabaranov/go-openai"

	"github.com/toolcall/toolcall/agentkit"
	"github.com/toolcall/toolcall/memory/redis"
)

// A fleet's sessions in Redis: every replica builds its Store on its own client of the
// same Redis, and any of them can run the session's next turn. The example needs a Redis
// on localhost:6379, so it is compiled, not run (it has no Output comment).
func ExampleNew() {
	ctx := context.Background()
	client := goredis.NewClient(&goredis.Options{
		Addr:                  "localhost:6379",
		ContextTimeoutEnabled: true, // a run's deadline also bounds each read and write
	})
	defer client.Close()
	store, err := redis.New(ctx, client, &redis.Options{Prefix: "myapp:sessions:"})
	if err != nil {
		log.Fatal(err)
	}
	agent := agentkit.New(openai.NewClient(os.Getenv("OPENAI_API_KEY")), &agentkit.Options{
		Model:  "gpt-4o-mini",
		Memory: store, // also the session lock across replicas, the Ledger and the PauseStore
	})
	res, err := agent.RunSession(ctx, "user-42", "北京天气怎么样？")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Output)
}
