package tasklife_test

// The scenario names RPCs by method name; this table maps each to the wrapper's method,
// so every step goes through the wrapper, never the raw stub.

import (
	"context"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/tasklife-dev/tasklife/clients/go/tasklife"
	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// casAttempts bounds the scenario's compare-and-swap retries; one retry is all it needs.
const casAttempts = 3

type scenarioMethod struct {
	newRequest func() proto.Message
	call       func(context.Context, proto.Message) (proto.Message, error)
	// cas is the call through tasklife.CompareAndSwap with retry on version mismatch;
	// nil for RPCs that are not transitions.
	cas func(context.Context, proto.Message) (proto.Message, error)
}

func scenarioMethods(c *tasklife.Client) map[string]scenarioMethod {
	return map[string]scenarioMethod{
		"CreateTask":          unaryMethod(c.CreateTask),
		"GetTask":             unaryMethod(c.GetTask),
		"ListTasks":           unaryMethod(c.ListTasks),
		"ListTaskEvents":      unaryMethod(c.ListTaskEvents),
		"ListTaskAttempts":    unaryMethod(c.ListTaskAttempts),
		"ListTaskFailures":    unaryMethod(c.ListTaskFailures),
		"CountTasks":          unaryMethod(c.CountTasks),
		"CountTaskEvents":     unaryMethod(c.CountTaskEvents),
		"StartBulkOperation":  unaryMethod(c.StartBulkOperation),
		"GetBulkOperation":    unaryMethod(c.GetBulkOperation),
		"ListBulkOperations":  unaryMethod(c.ListBulkOperations),
		"CancelBulkOperation": unaryMethod(c.CancelBulkOperation),
		"GetStateMachine":     unaryMethod(c.GetStateMachine),
		"Heartbeat":           unaryMethod(c.Heartbeat),
		"ClaimTasks":          unaryMethod(c.ClaimTasks),
		"EnqueueTask":         transitionMethod(c, c.EnqueueTask),
		"StartTask":           transitionMethod(c, c.StartTask),
		"CompleteTask":        transitionMethod(c, c.CompleteTask),
		"FailTask":            transitionMethod(c, c.FailTask),
		"RetryTask":           transitionMethod(c, c.RetryTask),
		"PauseTask":           transitionMethod(c, c.PauseTask),
		"ResumeTask":          transitionMethod(c, c.ResumeTask),
		"KillTask":            transitionMethod(c, c.KillTask),
		"AbandonTask":         transitionMethod(c, c.AbandonTask),
	}
}

func unaryMethod[Req, Resp proto.Message](call func(context.Context, Req) (Resp, error)) scenarioMethod {
	return scenarioMethod{
		newRequest: func() proto.Message {
			var zero Req
			return zero.ProtoReflect().Type().New().Interface()
		},
		call: func(ctx context.Context, req proto.Message) (proto.Message, error) {
			return asMessage(call(ctx, req.(Req)))
		},
	}
}

func transitionMethod[Req tasklife.TransitionRequest, Resp proto.Message](
	c *tasklife.Client, call func(context.Context, Req) (Resp, error),
) scenarioMethod {
	method := unaryMethod(call)
	method.cas = func(ctx context.Context, req proto.Message) (proto.Message, error) {
		return asMessage(tasklife.CompareAndSwap(ctx, c, call, req.(Req), tasklife.RetryOnVersionMismatch(casAttempts)))
	}
	return method
}

// asMessage keeps a failed call's typed nil response from becoming a non-nil interface.
func asMessage[Resp proto.Message](resp Resp, err error) (proto.Message, error) {
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// wrapperName is the Client method of each RPC whose wrapper is not named after it.
var wrapperName = map[string]string{"WatchTaskEvents": "Watch"}

func TestEveryRPCOfTheServiceHasAWrapperMethod(t *testing.T) {
	service := pb.File_tasklife_v1_task_service_proto.Services().ByName("TaskService")
	client := reflect.TypeOf(&tasklife.Client{})
	methods := service.Methods()
	for i := range methods.Len() {
		rpc := string(methods.Get(i).Name())
		name := rpc
		if other, ok := wrapperName[rpc]; ok {
			name = other
		}
		if _, ok := client.MethodByName(name); !ok {
			t.Errorf("RPC %s has no wrapper: *tasklife.Client has no method %s", rpc, name)
		}
	}
}
