"""Small teaching tools that are not part of any real integration (they import only core).

- ``tasks``: chapter 03's ``task_set_status`` on an in-memory task store, with its
  counter-example twin whose failures are bare;
- ``units``: chapter 03's ``job_get_result`` (units in the names);
- ``deploy``: chapter 07's ``deploy_release`` and its ``Deployments`` record;
- ``outbound``: chapter 06's ``http_send`` and its recording ``OutboundGateway`` (never
  leaves the machine).
"""
