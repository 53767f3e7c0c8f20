// admission: the validating webhook (`--validating-webhook`, path
// /networking/v1/ingresses). Owns: parsing AdmissionReview v1, the decision
// (the candidate Ingress put into the current snapshot, the pure model
// builder run, the candidate's own failures denied), and the bounded HTTPS
// server. Never runs NGINX or anything else on user input (CVE-2025-1974).
// May import: model (pure builder, class selection, types), pino and node
// types. Nothing of kube, sync, render or nginx.

export { reviewAdmission } from './admission-review.ts';
export type { AdmissionReviewResponse, ReviewReply } from './admission-review.ts';
export { startAdmissionWebhook } from './admission-webhook.ts';
export type { AdmissionWebhookOptions } from './admission-webhook.ts';
export { decideIngressAdmission } from './review.ts';
export type { AdmissionDecision } from './review.ts';
export { startWebhookServer, WEBHOOK_PATH } from './webhook-server.ts';
export type { ReviewOutcome, WebhookServer, WebhookServerOptions } from './webhook-server.ts';
