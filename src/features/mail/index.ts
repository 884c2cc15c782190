/** Mail: queued in a change's transaction, sent by the worker (SMTP_URL) or written to the log. */
export { deliverDueMail, isMailConfigured, MAIL_RETRY_SCHEDULE_MS, purgeFinishedMail, queueMail, type MailInput } from './mail.service.js';
export { type TemplateData, type TemplateName, type WeeklyWorkspace } from './templates.js';
