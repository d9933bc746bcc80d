// SPDX-License-Identifier: GPL-2.0
/*
 * The least an I/O scheduler can do in blk-mq, for measurements only:
 * one fifo under one lock, no merging, no ordering, no accounting.  What
 * it costs against "none" is the block core's scheduler path (a scheduler
 * tag and a driver tag per request, insertion, then dispatch); what a real
 * scheduler costs against it is its own work.
 *
 * make ab takes this file as a REV (README.md).  It registers as
 * "cfq-prio" so that scripts/ab.sh can rename it.
 */
#include <linux/kernel.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"

struct floor_data {
	/* Protects fifo. */
	spinlock_t		lock;
	struct list_head	fifo;
};

static int floor_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq = elevator_alloc(q, e);
	struct floor_data *fd;

	if (!eq)
		return -ENOMEM;
	fd = kzalloc_node(sizeof(*fd), GFP_KERNEL, q->node);
	if (!fd) {
		kobject_put(&eq->kobj);
		return -ENOMEM;
	}
	spin_lock_init(&fd->lock);
	INIT_LIST_HEAD(&fd->fifo);
	eq->elevator_data = fd;
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	q->elevator = eq;
	return 0;
}

static void floor_exit_sched(struct elevator_queue *e)
{
	kfree(e->elevator_data);
}

static void floor_insert_requests(struct blk_mq_hw_ctx *hctx,
				  struct list_head *list, blk_insert_t flags)
{
	struct floor_data *fd = hctx->queue->elevator->elevator_data;

	spin_lock(&fd->lock);
	if (flags & BLK_MQ_INSERT_AT_HEAD)
		list_splice_init(list, &fd->fifo);
	else
		list_splice_tail_init(list, &fd->fifo);
	spin_unlock(&fd->lock);
}

static struct request *floor_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct floor_data *fd = hctx->queue->elevator->elevator_data;
	struct request *rq;

	spin_lock(&fd->lock);
	rq = list_first_entry_or_null(&fd->fifo, struct request, queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		rq->rq_flags |= RQF_STARTED;
	}
	spin_unlock(&fd->lock);
	return rq;
}

static bool floor_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct floor_data *fd = hctx->queue->elevator->elevator_data;

	return !list_empty_careful(&fd->fifo);
}

/* Nothing to do, but elv_register() refuses an elevator without it. */
static void floor_finish_request(struct request *rq)
{
}

static struct elevator_type floor_iosched = {
	.ops = {
		.insert_requests	= floor_insert_requests,
		.dispatch_request	= floor_dispatch_request,
		.has_work		= floor_has_work,
		.finish_request		= floor_finish_request,
		.init_sched		= floor_init_sched,
		.exit_sched		= floor_exit_sched,
	},
	.elevator_name = "cfq-prio",
	.elevator_owner = THIS_MODULE,
};
MODULE_ALIAS("cfq-prio-iosched");

static int __init floor_init(void)
{
	return elv_register(&floor_iosched);
}

static void __exit floor_exit(void)
{
	elv_unregister(&floor_iosched);
}

module_init(floor_init);
module_exit(floor_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("measurement floor");
