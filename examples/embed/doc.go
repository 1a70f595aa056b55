// Command embed is the smallest complete host of the engine, the program
// the README shows under "Embed it": a store, the sandbox payout provider
// and the webhook sender; Engine.Run in the background; an organization
// funded by the operator; one payout created for it through Engine.Act and
// followed until the provider has paid it; then a clean stop (Run returns,
// the store closes).
//
//	go run ./examples/embed
//
// main_test.go runs it, so the README's copy keeps compiling and keeps
// reaching succeeded.
package main
