"""The scheduler's jobs are named for what they do: APScheduler's own warnings ('Run time
of job "..." was missed', 'Execution of job "..." skipped') and a failing job's log line
name the work, never the callable (`Again.__call__`, `Scheduler.digests`).
"""

from dataclasses import replace

from pbem.scheduler import JOB_NAMES, Scheduler


def test_every_job_has_an_id_and_a_name_that_say_what_it_does(config):
    scheduler = Scheduler(replace(config, imap_host="127.0.0.1"))  # IMAP too: every job
    try:
        jobs = {job.id: job for job in scheduler.scheduler.get_jobs()}
        assert set(jobs) == set(JOB_NAMES)
        for job_id, job in jobs.items():
            assert job.name == JOB_NAMES[job_id]
            # what APScheduler's warnings print: str(job), the name first
            assert str(job).startswith(JOB_NAMES[job_id] + " (trigger: interval")
            assert "Again" not in str(job) and "Scheduler" not in str(job)
        assert jobs["deliver-outbox"].name == "delivering the outbox"
    finally:
        scheduler.searcher.close()


def test_a_failing_job_is_logged_by_its_name(config, caplog):
    scheduler = Scheduler(config)
    try:
        scheduler._run("deadlines", lambda: 1 / 0)
    finally:
        scheduler.searcher.close()
    assert "acting on due deadlines failed" in caplog.text
    assert "ZeroDivisionError" in caplog.text
