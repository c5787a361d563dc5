"""GitHub-shaped JSON of the store's records (REST API version 2022-11-28).

:class:`Shapes` turns a :class:`~tutorial_lib.emulator.fixtures.GitHubStore`'s users,
repositories, pull requests and comments into the objects GitHub sends, with URLs under the
emulator's base URL; :func:`node_id` makes GraphQL node ids. The conformance test
(tests/test_emulator_conformance.py) validates every shape against GitHub's published
description; where the description and the real service disagree, the service wins (the
table in :mod:`tutorial_lib.emulator.service`'s docstring).
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any
from urllib.parse import quote, urlsplit

from tutorial_lib.emulator.fixtures import (
    GitHubStore,
    IssueComment,
    PullRequest,
    Repository,
    ReviewComment,
    User,
)

__all__ = ["Shapes", "node_id"]

#: When every account of the emulator was created (``public-user.created_at``).
_ACCOUNTS_CREATED_AT = "2019-06-01T12:00:00Z"


class Shapes:
    """Turns store records into GitHub-shaped JSON with URLs under ``base``.

    Each object has every field the REST description (2022-11-28) requires of it and the
    optional ones GitHub sends too (``reactions``, ``user_view_type``...), in GitHub's
    order; the counters (``comments``, ``review_comments``, ``open_issues_count``) are
    counted in ``store`` at the time of the request. Where the description and the service
    disagree, the service wins: see the table in the docstring of
    :mod:`tutorial_lib.emulator.service`.
    """

    def __init__(self, base: str, store: GitHubStore) -> None:
        self.base = base
        self.store = store
        self.host = urlsplit(base).netloc

    def user(self, user: User) -> dict[str, Any]:
        """A ``simple-user``."""
        # GitHub percent-encodes the brackets of a bot login in its API URLs
        url = f"{self.base}/users/{quote(user.login)}"
        return {
            "login": user.login,
            "id": user.id,
            "node_id": node_id("U", user.id),
            "avatar_url": f"{self.base}/avatars/u/{user.id}?v=4",
            "gravatar_id": "",
            "url": url,
            "html_url": self.user_html_url(user),
            "followers_url": url + "/followers",
            "following_url": url + "/following{/other_user}",
            "gists_url": url + "/gists{/gist_id}",
            "starred_url": url + "/starred{/owner}{/repo}",
            "subscriptions_url": url + "/subscriptions",
            "organizations_url": url + "/orgs",
            "repos_url": url + "/repos",
            "events_url": url + "/events{/privacy}",
            "received_events_url": url + "/received_events",
            "type": user.type,
            "user_view_type": "public",
            "site_admin": False,
        }

    def user_html_url(self, user: User) -> str:
        """A bot's page is its app's (``/apps/codecov``), anyone else's is ``/<login>``."""
        if user.type == "Bot" and user.login.endswith("[bot]"):
            return f"{self.base}/apps/{user.login.removesuffix('[bot]')}"
        return f"{self.base}/{user.login}"

    def public_user(self, user: User) -> dict[str, Any]:
        """A ``public-user`` (``GET /users/{login}``): the profile fields, none of them set."""
        public_repos = sum(r.owner.login == user.login for r in self.store.repositories())
        return {
            **self.user(user),
            "name": None,
            "company": None,
            "blog": "",
            "location": None,
            "email": None,
            "hireable": None,
            "bio": None,
            "twitter_username": None,
            "public_repos": public_repos,
            "public_gists": 0,
            "followers": 0,
            "following": 0,
            "created_at": _ACCOUNTS_CREATED_AT,
            "updated_at": _ACCOUNTS_CREATED_AT,
        }

    def repo_url(self, repo: Repository) -> str:
        return f"{self.base}/repos/{repo.full_name}"

    def repository(self, repo: Repository) -> dict[str, Any]:
        """A ``repository`` (as in a PR's ``head.repo`` and ``base.repo``)."""
        url = self.repo_url(repo)
        html = f"{self.base}/{repo.full_name}"
        open_issues = sum(p.state == "open" for p in self.store.pull_requests(repo.full_name))
        return {
            "id": repo.id,
            "node_id": node_id("R", repo.id),
            "name": repo.name,
            "full_name": repo.full_name,
            "private": repo.private,
            "owner": self.user(repo.owner),
            "html_url": html,
            "description": repo.description,
            "fork": False,
            "url": url,
            "forks_url": url + "/forks",
            "keys_url": url + "/keys{/key_id}",
            "collaborators_url": url + "/collaborators{/collaborator}",
            "teams_url": url + "/teams",
            "hooks_url": url + "/hooks",
            "issue_events_url": url + "/issues/events{/number}",
            "events_url": url + "/events",
            "assignees_url": url + "/assignees{/user}",
            "branches_url": url + "/branches{/branch}",
            "tags_url": url + "/tags",
            "blobs_url": url + "/git/blobs{/sha}",
            "git_tags_url": url + "/git/tags{/sha}",
            "git_refs_url": url + "/git/refs{/sha}",
            "trees_url": url + "/git/trees{/sha}",
            "statuses_url": url + "/statuses/{sha}",
            "languages_url": url + "/languages",
            "stargazers_url": url + "/stargazers",
            "contributors_url": url + "/contributors",
            "subscribers_url": url + "/subscribers",
            "subscription_url": url + "/subscription",
            "commits_url": url + "/commits{/sha}",
            "git_commits_url": url + "/git/commits{/sha}",
            "comments_url": url + "/comments{/number}",
            "issue_comment_url": url + "/issues/comments{/number}",
            "contents_url": url + "/contents/{+path}",
            "compare_url": url + "/compare/{base}...{head}",
            "merges_url": url + "/merges",
            "archive_url": url + "/{archive_format}{/ref}",
            "downloads_url": url + "/downloads",
            "issues_url": url + "/issues{/number}",
            "pulls_url": url + "/pulls{/number}",
            "milestones_url": url + "/milestones{/number}",
            "notifications_url": url + "/notifications{?since,all,participating}",
            "labels_url": url + "/labels{/name}",
            "releases_url": url + "/releases{/id}",
            "deployments_url": url + "/deployments",
            "created_at": repo.created_at,
            "updated_at": repo.updated_at,
            "pushed_at": repo.pushed_at,
            "git_url": f"git://{self.host}/{repo.full_name}.git",
            "ssh_url": f"git@{self.host}:{repo.full_name}.git",
            "clone_url": html + ".git",
            "svn_url": html,
            "homepage": None,
            "size": 0,
            "stargazers_count": 0,
            "watchers_count": 0,
            "language": repo.language,
            "has_issues": True,
            "has_projects": True,
            "has_downloads": True,
            "has_wiki": True,
            "has_pages": False,
            "has_discussions": False,
            "forks_count": 0,
            "mirror_url": None,
            "archived": False,
            "disabled": False,
            "open_issues_count": open_issues,
            "license": None,
            "allow_forking": True,
            "is_template": False,
            "web_commit_signoff_required": False,
            "topics": [],
            "visibility": "private" if repo.private else "public",
            "forks": 0,
            "open_issues": open_issues,
            "watchers": 0,
            "default_branch": repo.default_branch,
        }

    def full_repository(self, repo: Repository) -> dict[str, Any]:
        """A ``full-repository`` (``GET /repos/{owner}/{repo}``)."""
        shaped = self.repository(repo)
        if repo.owner.type == "Organization":
            shaped["organization"] = self.user(repo.owner)
        return {**shaped, "network_count": 0, "subscribers_count": 0}

    def pull(self, repo: Repository, pull: PullRequest) -> dict[str, Any]:
        """A ``pull-request`` (``GET .../pulls/{n}``), its counters counted now."""
        url = f"{self.repo_url(repo)}/pulls/{pull.number}"
        issue_url = f"{self.repo_url(repo)}/issues/{pull.number}"
        html = f"{self.base}/{repo.full_name}/pull/{pull.number}"
        review_comment_url = f"{self.repo_url(repo)}/pulls/comments{{/number}}"
        statuses_url = f"{self.repo_url(repo)}/statuses/{pull.head_sha}"
        repo_json = self.repository(repo)
        comments = len(self.store.issue_comments(repo.full_name, pull.number))
        review_comments = len(self.store.review_comments(repo.full_name, pull.number))
        # an open PR's merge_commit_sha is GitHub's test merge: any stable 40-hex sha will do
        test_merge = hashlib.sha1(f"{pull.base_sha}+{pull.head_sha}".encode()).hexdigest()

        def branch(ref: str, sha: str) -> dict[str, Any]:
            return {
                "label": f"{repo.owner.login}:{ref}",
                "ref": ref,
                "sha": sha,
                "user": self.user(repo.owner),
                "repo": repo_json,
            }

        return {
            "url": url,
            "id": pull.id,
            "node_id": node_id("PR", pull.id),
            "html_url": html,
            "diff_url": html + ".diff",
            "patch_url": html + ".patch",
            "issue_url": issue_url,
            "number": pull.number,
            "state": pull.state,
            "locked": False,
            "title": pull.title,
            "user": self.user(pull.user),
            "body": pull.body,
            "created_at": pull.created_at,
            "updated_at": pull.updated_at,
            "closed_at": pull.merged_at,
            "merged_at": pull.merged_at,
            "merge_commit_sha": pull.merge_commit_sha or test_merge,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "labels": [],
            "milestone": None,
            "draft": False,
            "commits_url": url + "/commits",
            "review_comments_url": url + "/comments",
            "review_comment_url": review_comment_url,
            "comments_url": issue_url + "/comments",
            "statuses_url": statuses_url,
            "head": branch(pull.head_ref, pull.head_sha),
            "base": branch(pull.base_ref, pull.base_sha),
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "issue": {"href": issue_url},
                "comments": {"href": issue_url + "/comments"},
                "review_comments": {"href": url + "/comments"},
                "review_comment": {"href": review_comment_url},
                "commits": {"href": url + "/commits"},
                "statuses": {"href": statuses_url},
            },
            "author_association": "CONTRIBUTOR",
            "auto_merge": None,
            "active_lock_reason": None,
            "merged": pull.merged_at is not None,
            "mergeable": pull.mergeable,
            "rebaseable": pull.mergeable,
            "mergeable_state": pull.mergeable_state,
            # the emulator's merges are all made by its viewer (the token's account)
            "merged_by": None if pull.merged_at is None else self.user(self.store.viewer),
            "comments": comments,
            "review_comments": review_comments,
            "maintainer_can_modify": False,
            "commits": pull.commits,
            "additions": pull.additions,
            "deletions": pull.deletions,
            "changed_files": pull.changed_files,
        }

    def issue(self, repo: Repository, pull: PullRequest, n_comments: int) -> dict[str, Any]:
        """An ``issue`` (``GET .../issues/{n}``): the PR seen as an issue."""
        issue_url = f"{self.repo_url(repo)}/issues/{pull.number}"
        html = f"{self.base}/{repo.full_name}/pull/{pull.number}"
        return {
            "url": issue_url,
            "repository_url": self.repo_url(repo),
            "labels_url": issue_url + "/labels{/name}",
            "comments_url": issue_url + "/comments",
            "events_url": issue_url + "/events",
            "html_url": html,
            "id": pull.id + 1,
            "node_id": node_id("I", pull.id),
            "number": pull.number,
            "title": pull.title,
            "user": self.user(pull.user),
            "labels": [],
            "state": pull.state,
            "locked": False,
            "assignee": None,
            "assignees": [],
            "milestone": None,
            "comments": n_comments,
            "created_at": pull.created_at,
            "updated_at": pull.updated_at,
            "closed_at": pull.merged_at,
            "author_association": "CONTRIBUTOR",
            "active_lock_reason": None,
            "draft": False,
            "pull_request": {
                "url": f"{self.repo_url(repo)}/pulls/{pull.number}",
                "html_url": html,
                "diff_url": html + ".diff",
                "patch_url": html + ".patch",
                "merged_at": pull.merged_at,
            },
            "body": pull.body,
            "closed_by": None,
            "reactions": self.reactions(issue_url),
            "timeline_url": issue_url + "/timeline",
            "performed_via_github_app": None,
            "state_reason": None,
        }

    def reactions(self, subject_url: str) -> dict[str, Any]:
        """A ``reaction-rollup``: nobody reacts in this emulator."""
        counts = dict.fromkeys(("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket"), 0)
        return {"url": subject_url + "/reactions", "total_count": 0, **counts, "eyes": 0}

    def review_comment(self, repo: Repository, c: ReviewComment) -> dict[str, Any]:
        """A ``pull-request-review-comment``; an outdated one has ``line`` and ``position``
        ``null``, as on GitHub."""
        url = f"{self.repo_url(repo)}/pulls/comments/{c.id}"
        pull_url = f"{self.repo_url(repo)}/pulls/{c.pr}"
        html = f"{self.base}/{repo.full_name}/pull/{c.pr}#discussion_r{c.id}"
        # the commented line ends the hunk: its index in the diff is the hunk's line count
        position = len(c.diff_hunk.splitlines()) - 1
        shaped: dict[str, Any] = {
            "url": url,
            "pull_request_review_id": c.review_id,
            "id": c.id,
            "node_id": node_id("PRRC", c.id),
            "diff_hunk": c.diff_hunk,
            "path": c.path,
            "commit_id": c.commit_id,
            "original_commit_id": c.original_commit_id,
            "user": self.user(c.user),
            "body": c.body,
            "created_at": c.created_at,
            "updated_at": c.updated_at,
            "html_url": html,
            "pull_request_url": pull_url,
            "author_association": c.author_association,
            "_links": {
                "self": {"href": url},
                "html": {"href": html},
                "pull_request": {"href": pull_url},
            },
            "reactions": self.reactions(url),
            "start_line": None,
            "original_start_line": None,
            "start_side": None,
            "line": c.line,
            "original_line": c.original_line,
            "side": c.side,
            "original_position": position,
            "position": None if c.line is None else position,
            "subject_type": "line",
        }
        if c.in_reply_to_id is not None:
            shaped["in_reply_to_id"] = c.in_reply_to_id
        return shaped

    def issue_comment(self, repo: Repository, c: IssueComment) -> dict[str, Any]:
        """An ``issue-comment`` (conversation comment)."""
        url = f"{self.repo_url(repo)}/issues/comments/{c.id}"
        return {
            "id": c.id,
            "node_id": node_id("IC", c.id),
            "url": url,
            "html_url": f"{self.base}/{repo.full_name}/pull/{c.number}#issuecomment-{c.id}",
            "issue_url": f"{self.repo_url(repo)}/issues/{c.number}",
            "user": self.user(c.user),
            "created_at": c.created_at,
            "updated_at": c.updated_at,
            "body": c.body,
            "author_association": c.author_association,
            "reactions": self.reactions(url),
            "performed_via_github_app": None,
        }


def node_id(prefix: str, number: int) -> str:
    """A GraphQL node id, e.g. ``PR_MTIz`` (the prefix, then the number in base64)."""
    return f"{prefix}_" + base64.urlsafe_b64encode(str(number).encode()).decode().rstrip("=")
