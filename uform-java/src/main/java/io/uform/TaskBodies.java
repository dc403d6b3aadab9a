package io.uform;

import io.uform.host.ForkBodies;

/** How the host pool runs the API's fork tasks: each as itself, with nothing wrapped per fork. */
final class TaskBodies implements ForkBodies<ThreadTask, ProngTask, SliceTask> {

	/** The one instance every executor's pool runs its tasks through. */
	static final TaskBodies INSTANCE = new TaskBodies();

	private TaskBodies() {
	}

	@Override
	public void runThread(ThreadTask task, int thread, int colocation) {
		task.run(thread, colocation);
	}

	@Override
	public void runProng(ProngTask task, int index, int thread, int colocation) {
		task.run(index, thread, colocation);
	}

	@Override
	public void runSlice(SliceTask task, int first, int count, int thread, int colocation) {
		task.run(first, count, thread, colocation);
	}
}
