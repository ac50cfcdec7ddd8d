data "aws_caller_identity" "current" {}

locals {
  account_id     = data.aws_caller_identity.current.account_id
  results_bucket = "${var.project}-results-${local.account_id}-${var.region}"
  state_bucket   = "${var.project}-tfstate-${local.account_id}-${var.region}"
}

# --- results: each box uploads its run here, the bench workflow downloads it ---

resource "aws_s3_bucket" "results" {
  #checkov:skip=CKV_AWS_18:Access logging needs a second log bucket; the objects are benchmark results that become public in the repo, and CloudTrail records the API calls.
  #checkov:skip=CKV_AWS_144:Cross-region replication doubles cost for data that the bench workflow copies into git within hours.
  #checkov:skip=CKV_AWS_145:SSE-S3 (AES256) encryption is on; a customer-managed KMS key adds cost and a key policy for public benchmark results.
  #checkov:skip=CKV2_AWS_62:Nothing consumes bucket events: the workflow polls for the done marker with a bound.
  bucket = local.results_bucket
}

resource "aws_s3_bucket_versioning" "results" {
  bucket = aws_s3_bucket.results.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "results" {
  bucket = aws_s3_bucket.results.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
    bucket_key_enabled = true
  }
}

resource "aws_s3_bucket_public_access_block" "results" {
  bucket                  = aws_s3_bucket.results.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_ownership_controls" "results" {
  bucket = aws_s3_bucket.results.id
  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "results" {
  bucket = aws_s3_bucket.results.id

  rule {
    id     = "expire-uploaded-runs"
    status = "Enabled"
    filter {}
    expiration {
      days = var.results_retention_days
    }
    noncurrent_version_expiration {
      noncurrent_days = 7
    }
    abort_incomplete_multipart_upload {
      days_after_initiation = 2
    }
  }
}

data "aws_iam_policy_document" "tls_only" {
  for_each = {
    results = aws_s3_bucket.results.arn
    state   = aws_s3_bucket.state.arn
  }

  statement {
    sid       = "DenyPlainHttp"
    effect    = "Deny"
    actions   = ["s3:*"]
    resources = [each.value, "${each.value}/*"]
    principals {
      type        = "*"
      identifiers = ["*"]
    }
    condition {
      test     = "Bool"
      variable = "aws:SecureTransport"
      values   = ["false"]
    }
  }
}

resource "aws_s3_bucket_policy" "results" {
  bucket = aws_s3_bucket.results.id
  policy = data.aws_iam_policy_document.tls_only["results"].json
}

# --- Terraform state for the per-run module (S3 backend, native lock file) ---

resource "aws_s3_bucket" "state" {
  #checkov:skip=CKV_AWS_18:Access logging needs a second log bucket; state holds no secrets (no keys, instance ids only) and CloudTrail records the API calls.
  #checkov:skip=CKV_AWS_144:Per-run state lives for hours; losing a region loses nothing the reaper cannot clean up by tag.
  #checkov:skip=CKV_AWS_145:SSE-S3 (AES256) encryption is on; a customer-managed KMS key adds cost and a key policy without protecting anything secret.
  #checkov:skip=CKV2_AWS_62:Nothing consumes state bucket events.
  bucket = local.state_bucket
}

resource "aws_s3_bucket_versioning" "state" {
  bucket = aws_s3_bucket.state.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "state" {
  bucket = aws_s3_bucket.state.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
    bucket_key_enabled = true
  }
}

resource "aws_s3_bucket_public_access_block" "state" {
  bucket                  = aws_s3_bucket.state.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_bucket_ownership_controls" "state" {
  bucket = aws_s3_bucket.state.id
  rule {
    object_ownership = "BucketOwnerEnforced"
  }
}

resource "aws_s3_bucket_lifecycle_configuration" "state" {
  bucket = aws_s3_bucket.state.id

  rule {
    id     = "expire-old-state-versions"
    status = "Enabled"
    filter {}
    noncurrent_version_expiration {
      noncurrent_days = 30
    }
    abort_incomplete_multipart_upload {
      days_after_initiation = 2
    }
  }
}

resource "aws_s3_bucket_policy" "state" {
  bucket = aws_s3_bucket.state.id
  policy = data.aws_iam_policy_document.tls_only["state"].json
}
